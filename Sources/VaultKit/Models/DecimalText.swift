/// Realm's spelling of a decimal: what its `Decimal128::to_string()` prints for the
/// value a decimal text parses to (an IEEE 754 decimal128 keeps the exponent it was
/// written with, so `"1.50"` is coefficient 150, exponent −2, and prints `"1.50"`).
///
/// The coefficient's digits are printed with the decimal point moved left, one place
/// per step towards a zero exponent (the exponent growing by one each step), while a
/// digit remains before the point; what is left of the exponent follows as `E<n>`:
/// `1.50`, `-23280291.00`, `1E100`, `1.5E3` (15 × 10²), `5E-3`. Coefficients of more than 19 digits print as the Intel library does
/// (`+<digits>E<±n>`), as Realm does for them.
enum DecimalText {
    /// Realm's form of a text that `Decimal128.isDecimalText` accepted.
    static func realmForm(of text: String) -> String {
        var negative = false
        var digits = ""
        var exponent = 0
        var afterPoint = false
        var exponentText = ""
        var inExponent = false
        for character in text {
            if inExponent {
                exponentText.append(character)
                continue
            }
            switch character {
            case "-": negative = true
            case "+": break
            case ".": afterPoint = true
            case "e", "E": inExponent = true
            default:
                digits.append(character)
                if afterPoint { exponent -= 1 }
            }
        }
        exponent += Int(exponentText) ?? 0
        let coefficient = String(digits.drop { $0 == "0" })
        let significant = coefficient.isEmpty ? "0" : coefficient
        if significant.count > 19 {
            return (negative ? "-" : "+") + significant + "E" + (exponent < 0 ? "-\(-exponent)" : "+\(exponent)")
        }
        var result = negative ? "-" : ""
        var before = significant.count
        while before > 1 && exponent != 0 {
            before -= 1
            exponent += 1
        }
        result += significant.prefix(before)
        if before < significant.count {
            result += "." + significant.dropFirst(before)
        }
        if exponent != 0 { result += "E\(exponent)" }
        return result
    }
}
