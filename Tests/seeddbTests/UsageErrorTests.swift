import Testing
@testable import seeddb

/// How usage errors are worded, in process (the end-to-end cases are in FirstHourTests).
@Suite struct UsageErrorTests {
    @Test func suggestsTheClosestName() {
        #expect(UsageError.suggestion(for: "deploi", among: ["deploy", "reseed", "verify"]) == "; did you mean `deploy`?")
        #expect(UsageError.suggestion(for: "--manfest", among: ["--manifest", "--app"]) == "; did you mean `--manifest`?")
        #expect(UsageError.suggestion(for: "frobnicate", among: ["deploy", "reseed"]) == "")
    }

    @Test func negativeNumbersAreValues() {
        #expect(UsageError.joiningNegativeValues(["deploy", "--wait", "-1", "-q"]) == ["deploy", "--wait=-1", "-q"])
        #expect(UsageError.joiningNegativeValues(["--every", "-0.5"]) == ["--every=-0.5"])
        #expect(UsageError.joiningNegativeValues(["pack", "--", "--x", "-1"]) == ["pack", "--", "--x", "-1"])
        #expect(UsageError.joiningNegativeValues(["--json", "-q"]) == ["--json", "-q"])
    }

    @Test func rephrasesArgumentParserMessages() {
        #expect(UsageError.rephrased("the value '0777' is invalid for '--mode <octal>': a mode that lets the group or others write is refused")
            == #"invalid --mode "0777": a mode that lets the group or others write is refused"#)
        #expect(UsageError.rephrased(#"the value 'a b' is invalid for '--app <id>': invalid app id "a b": only letters"#)
            == #"invalid app id "a b": only letters (--app)"#)
        #expect(UsageError.rephrased("the value 'tmp' is invalid for '--location <data|cache>'. Please provide one of 'data' and 'cache'.")
            == #"invalid --location "tmp": expected data or cache"#)
        #expect(UsageError.oneLine("Missing value for '--wait <seconds>'\nUsage: x") == "missing value for '--wait <seconds>'; Usage: x")
        #expect(UsageError.rephrased("missing value for '--wait <seconds>'") == "missing value for `--wait <seconds>`")
        #expect(UsageError.rephrased("the seed's value") == "the seed's value")
    }
}
