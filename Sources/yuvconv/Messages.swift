import YUVIO

/// The library's errors name no option; this is where the command line adds its own names to them.
extension FileError {
    /// The reason, with the option that gets past it.
    var cliReason: String {
        switch remedy {
        case .maxPixels?: return reason + " (--max-pixels)"
        case .maxScans?: return reason + " (--max-scans)"
        case .overwrite?: return reason + " (use --force to overwrite)"
        case .frameSize?: return reason + " (check --size and --pix-fmt)"
        case .allowDamaged?:
            // "… (image data is damaged or missing)" → "… (image data is damaged or missing; --allow-truncated accepts it)"
            return reason.hasSuffix(")") ? reason.dropLast() + "; --allow-truncated accepts it)"
                                         : reason + " (--allow-truncated accepts it)"
        case nil: return reason
        }
    }

    /// `FILE: reason` as the command line prints it.
    var cli: String { "\(displayPath(path)): \(cliReason)" }
}
