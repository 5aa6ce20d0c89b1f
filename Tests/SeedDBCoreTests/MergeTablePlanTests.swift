import SeedDBCore
import Testing

@Suite struct MergeTablePlanTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var facts: MergeTableFacts
        var policy: MergePolicy = .userWins
        var hasBase = true
        var action: MergeTableAction
        var testDescription: String { name }
    }

    static func facts(
        base: MergeTableFacts.Kind?, user: MergeTableFacts.Kind?, seed: MergeTableFacts.Kind?, key: Bool = true, empty: Bool = false, apps: Bool = false,
        leftAlone: Bool = false
    ) -> MergeTableFacts {
        var facts = MergeTableFacts(name: "t", base: base, user: user, seed: seed, hasPrimaryKey: key, seedIsEmpty: empty, seedTableIsTheApps: apps)
        facts.userLeftAlone = leftAlone
        return facts
    }

    static let cases: [Case] = [
        Case(name: "left alone, no base: the seed's rows stand", facts: facts(base: nil, user: .ordinary, seed: .ordinary, leftAlone: true), hasBase: false, action: .seedStands(warn: false)),
        Case(name: "left alone, no base, the seed emptied it: it stays empty", facts: facts(base: nil, user: .ordinary, seed: .ordinary, empty: true, leftAlone: true), hasBase: false, action: .seedStands(warn: false)),
        Case(name: "left alone, no base, the seed dropped it: dropped", facts: facts(base: nil, user: .ordinary, seed: nil, leftAlone: true), hasBase: false, action: .dropped),
        Case(name: "changed, no base, the seed dropped it: carried", facts: facts(base: nil, user: .ordinary, seed: nil), hasBase: false, action: .carry),
        Case(name: "a seed table with a primary key is merged", facts: facts(base: .ordinary, user: .ordinary, seed: .ordinary), action: .merge(withBase: true)),
        Case(name: "off: the seed's rows stand, silently", facts: facts(base: .ordinary, user: .ordinary, seed: .ordinary), policy: .off, action: .seedStands(warn: false)),
        Case(name: "no primary key: the seed's stands, with a warning", facts: facts(base: .ordinary, user: .ordinary, seed: .ordinary, key: false), action: .seedStands(warn: true)),
        Case(name: "no primary key under off: no warning", facts: facts(base: .ordinary, user: .ordinary, seed: .ordinary, key: false), policy: .off, action: .seedStands(warn: false)),
        Case(name: "virtual table: warned", facts: facts(base: .virtual, user: .virtual, seed: .virtual, key: false), action: .seedStands(warn: true)),
        Case(name: "shadow table: not named", facts: facts(base: .shadow, user: .shadow, seed: .shadow), action: .seedStands(warn: false)),
        Case(name: "sqlite_ table: warned", facts: facts(base: .system, user: .system, seed: .system, key: false), action: .seedStands(warn: true)),
        Case(name: "the app's table is carried", facts: facts(base: nil, user: .ordinary, seed: nil), action: .carry),
        Case(name: "the app's table a rollback restores is carried, key or not", facts: facts(base: nil, user: .ordinary, seed: .ordinary, key: false, apps: true), action: .carry),
        Case(name: "the app's table a rollback restores is carried, with a base too", facts: facts(base: .ordinary, user: .ordinary, seed: .ordinary, apps: true), action: .carry),
        Case(name: "the app's table a rollback restores stays when the user dropped it", facts: facts(base: nil, user: nil, seed: .ordinary, apps: true), action: .seedStands(warn: false)),
        Case(name: "the app's table is carried under off too", facts: facts(base: nil, user: .ordinary, seed: nil), policy: .off, action: .carry),
        Case(name: "the app's virtual table is carried", facts: facts(base: nil, user: .virtual, seed: nil, key: false), action: .carry),
        Case(name: "a table the seed dropped goes", facts: facts(base: .ordinary, user: .ordinary, seed: nil), action: .dropped),
        Case(name: "the app's table a migration created empty in the seed is carried", facts: facts(base: nil, user: .ordinary, seed: .ordinary, empty: true), action: .carry),
        Case(name: "a table both created, seed non-empty: merged with an empty base", facts: facts(base: nil, user: .ordinary, seed: .ordinary), action: .merge(withBase: false)),
        Case(name: "a seed table the user dropped: the seed's, named", facts: facts(base: .ordinary, user: nil, seed: .ordinary), action: .seedStands(warn: true)),
        Case(name: "a seed table the user dropped, merging off: the seed's, silently", facts: facts(base: .ordinary, user: nil, seed: .ordinary), policy: .off, action: .seedStands(warn: false)),
        Case(name: "a table the user lacks, no base: the seed's", facts: facts(base: nil, user: nil, seed: .ordinary), hasBase: false, action: .seedStands(warn: false)),
        Case(name: "no base: merged without one", facts: facts(base: nil, user: .ordinary, seed: .ordinary), hasBase: false, action: .merge(withBase: false)),
        Case(name: "no base, merging off: the seed's rows stand", facts: facts(base: nil, user: .ordinary, seed: .ordinary), policy: .off, hasBase: false, action: .seedStands(warn: false)),
        Case(name: "no base, no primary key: the seed's rows stand, with a warning", facts: facts(base: nil, user: .ordinary, seed: .ordinary, key: false), hasBase: false, action: .seedStands(warn: true)),
        Case(name: "no base: the app's table is carried", facts: facts(base: nil, user: .ordinary, seed: nil), hasBase: false, action: .carry),
        Case(name: "no base: an empty seed table takes the user's rows", facts: facts(base: nil, user: .ordinary, seed: .ordinary, empty: true), hasBase: false, action: .carry),
        Case(name: "no base: nothing warned", facts: facts(base: nil, user: .virtual, seed: .virtual, key: false), hasBase: false, action: .seedStands(warn: false)),
    ]

    @Test(arguments: cases)
    func decides(_ row: Case) {
        #expect(MergeTablePlan.action(for: row.facts, policy: row.policy, hasBase: row.hasBase) == row.action)
    }
}
