extension String {
    /// The string of these scalars, encoded in one pass: appending them one at a time to a
    /// `String.UnicodeScalarView` costs tens of instructions per scalar, and URL values (a
    /// `data:` image in CSS, a long `srcset`) run to hundreds of kilobytes.
    init(scalars: ArraySlice<Unicode.Scalar>) {
        let utf8 = [UInt8](unsafeUninitializedCapacity: scalars.count * 4) { buffer, initialized in
            var n = 0
            for scalar in scalars {
                let value = scalar.value
                if value < 0x80 {
                    buffer[n] = UInt8(value)
                    n += 1
                } else if value < 0x800 {
                    buffer[n] = UInt8(0xC0 | value >> 6)
                    buffer[n + 1] = UInt8(0x80 | value & 0x3F)
                    n += 2
                } else if value < 0x1_0000 {
                    buffer[n] = UInt8(0xE0 | value >> 12)
                    buffer[n + 1] = UInt8(0x80 | value >> 6 & 0x3F)
                    buffer[n + 2] = UInt8(0x80 | value & 0x3F)
                    n += 3
                } else {
                    buffer[n] = UInt8(0xF0 | value >> 18)
                    buffer[n + 1] = UInt8(0x80 | value >> 12 & 0x3F)
                    buffer[n + 2] = UInt8(0x80 | value >> 6 & 0x3F)
                    buffer[n + 3] = UInt8(0x80 | value & 0x3F)
                    n += 4
                }
            }
            initialized = n
        }
        self = String(decoding: utf8, as: UTF8.self)
    }
}
