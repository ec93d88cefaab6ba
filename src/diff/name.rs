//! Kernel names normalised for matching across runs (docs/diff.md).
//!
//! Two runs of the same code print the same kernel with small differences
//! that are not the kernel: an address, the spelling of an anonymous
//! namespace, spaces inside template argument lists, integer-literal
//! suffixes and casts that differ between compilers/demanglers. The key
//! keeps everything else, so different instantiations (`<128>` vs `<256>`)
//! stay different kernels.
//!
//! Rules, in order:
//! 1. hex addresses `0x…` → `0x?`;
//! 2. `{anonymous}`, `<unnamed>`, `(anonymous namespace)` → `(anon)`;
//! 3. C-style casts of integer literals in template arguments
//!    (`(int)128`, `(unsigned int)4`, `(bool)1`) → the literal;
//! 4. integer suffixes `u`, `l`, `ul`, `ull`, `ll` (any case) after a
//!    literal → dropped;
//! 5. whitespace removed around `<`, `>`, `,`, `(`, `)`, `*`, `&` and runs of
//!    whitespace collapsed to one space; leading/trailing space trimmed.

use regex::Regex;
use std::sync::OnceLock;

/// Matching key of a kernel name (see the module rules).
pub fn normalize(name: &str) -> String {
    static RES: OnceLock<[Regex; 5]> = OnceLock::new();
    let [hex, anon, cast, suffix, punct] = RES.get_or_init(|| {
        [
            Regex::new(r"0[xX][0-9a-fA-F]+").expect("static regex"),
            Regex::new(r"\{anonymous\}|<unnamed>|\(anonymous namespace\)").expect("static regex"),
            Regex::new(r"\((?:unsigned |signed )?(?:int|long|long long|short|char|bool|unsigned)\)\s*(-?\d)")
                .expect("static regex"),
            Regex::new(r"\b(\d+)(?:[uU](?:[lL]{1,2})?|[lL]{1,2}[uU]?)\b").expect("static regex"),
            Regex::new(r"\s*([<>,()*&])\s*").expect("static regex"),
        ]
    });
    let s = hex.replace_all(name, "0x?");
    let s = anon.replace_all(&s, "(anon)");
    let s = cast.replace_all(&s, "$1");
    let s = suffix.replace_all(&s, "$1");
    let s = punct.replace_all(&s, "$1");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn noise_goes_instantiations_stay() {
        assert_eq!(
            normalize("void k<(int)128, 4u>(float *, int)"),
            normalize("void k<128, 4>(float*,int)")
        );
        assert_eq!(
            normalize("void f< a<b> >(T *)  @0x7f00ab"),
            "void f<a<b>>(T*)@0x?"
        );
        assert_eq!(
            normalize("void {anonymous}::rms<4>()"),
            normalize("void (anonymous namespace)::rms<4>()")
        );
        assert_ne!(normalize("k<128>"), normalize("k<256>"));
        // A name whose digits end a word is not a suffix case.
        assert_eq!(normalize("sm90_xmma_gemm_64x128"), "sm90_xmma_gemm_64x128");
        assert_eq!(normalize("k<16ul, 2LL>"), "k<16,2>");
    }
}
