// The reference for the whole-process startup benchmark: a Swift program that imports
// Foundation and prints one line, built the same way as `seeddb`.
import Foundation

print("hello, \(ProcessInfo.processInfo.processName)")
