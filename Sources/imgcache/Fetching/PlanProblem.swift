#if CommandLine
import ArgumentParser
import ImgCache

extension LocalizationPlan.Problem {
    /// What the command throws for the problem: a conflict is a usage error (exit 64) naming the
    /// option that resolves it, which ArgumentParser prints; a folder that cannot be read is said
    /// here, and ends the command with exit 1.
    func reported() -> any Error {
        switch kind {
        case .outputsCollide: return ValidationError("\(self); fetch them into different --out folders")
        case .overwritesItself, .overwritesInput: return ValidationError("\(self); choose another --out folder")
        case .insideCacheFolder: return ValidationError("\(self); choose another --cache-dir")
        default:
            Diagnostics.error(description)
            return ExitCode.failure
        }
    }
}
#endif
