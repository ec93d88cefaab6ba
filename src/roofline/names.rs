//! Readable kernel labels, one place for the table, Markdown and plot.
//!
//! A demangled kernel name (`void at::native::elementwise_kernel<128, 4,
//! …::{lambda(int)#1}>(int, T3)`) is too long for a cell and, cut to fit, two
//! different kernels print the same. [`labels`] gives every distinct name a
//! label of at most [`LABEL_CHARS`] characters that no other name of the same
//! report shares: the function's base name, then, only where two kernels
//! would read the same, their template arguments in short form, then the
//! part of the name where they differ, and as a last resort a number (`#2`)
//! in order of appearance.

use crate::units::ellipsize;
use std::collections::HashMap;
use std::sync::Arc;

/// Longest label, in characters (table cells and plot labels).
pub const LABEL_CHARS: usize = 36;

/// The parts of a demangled kernel name.
struct Parts {
    /// Last component of the qualified name (`elementwise_kernel`).
    base: String,
    /// Top-level template arguments, as written.
    args: Vec<String>,
    /// The name without `void` and without its parameter list.
    head: String,
}

/// Index of the bracket matching the opening one at `open` (`<`/`(`),
/// counting only brackets of the same kind; `None` when unbalanced.
fn matching(s: &[char], open: usize) -> Option<usize> {
    let (o, c) = (s[open], if s[open] == '<' { '>' } else { ')' });
    let mut depth = 0usize;
    for (i, &ch) in s.iter().enumerate().skip(open) {
        if ch == o {
            depth += 1;
        } else if ch == c {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// Splits on commas outside any bracket.
fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn parts(name: &str) -> Parts {
    // `<unnamed>` and `(anonymous namespace)` are namespaces, not brackets.
    let cleaned = name
        .replace("<unnamed>::", "")
        .replace("(anonymous namespace)::", "");
    let mut s = cleaned.trim();
    s = s.strip_prefix("void ").unwrap_or(s).trim();
    let chars: Vec<char> = s.chars().collect();
    // The parameter list: the bracket group that closes the name.
    let mut end = chars.len();
    if chars.last() == Some(&')') {
        let mut depth = 0usize;
        for i in (0..chars.len()).rev() {
            match chars[i] {
                ')' => depth += 1,
                '(' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    // A return type before the name (`std::enable_if<!T7, void>::type
    // internal::kernel<…>`): the name starts after the last space outside
    // brackets.
    let mut start = 0;
    let mut depth = 0i32;
    for (i, &c) in chars[..end].iter().enumerate() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ' ' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    let head_chars = &chars[start..end];
    let head: String = head_chars.iter().collect::<String>().trim().to_string();
    let (qualified, args) = match head_chars.iter().position(|&c| c == '<') {
        Some(open) => match matching(head_chars, open) {
            Some(close) => (
                head_chars[..open].iter().collect::<String>(),
                split_top(&head_chars[open + 1..close].iter().collect::<String>()),
            ),
            None => (head_chars[..open].iter().collect::<String>(), Vec::new()),
        },
        None => (head.clone(), Vec::new()),
    };
    let base = qualified
        .rsplit("::")
        .next()
        .unwrap_or(&qualified)
        .trim()
        .to_string();
    Parts {
        base: if base.is_empty() { head.clone() } else { base },
        args,
        head,
    }
}

/// A template argument in short form: a number or a type's base name
/// (`(int)4` → `4`, `c10::Half` → `Half`, `{lambda(int)#1}` → `lambda#1`),
/// with its own arguments to `depth` more levels.
fn short_arg(arg: &str, depth: usize) -> String {
    let a = arg.trim();
    if let Some(rest) = a.strip_prefix('(') {
        // A cast literal: `(int)4`, `(unsigned long)4`.
        if let Some((_, v)) = rest.split_once(')') {
            if !v.is_empty() && !v.contains('(') {
                return v.trim().to_string();
            }
        }
    }
    if a.starts_with("{lambda") {
        let n = a.rsplit('#').next().unwrap_or("").trim_end_matches('}');
        return format!("lambda#{n}");
    }
    let p = parts(a);
    render(&p, depth)
}

/// `base` with its template arguments to `depth` levels (0: base alone).
fn render(p: &Parts, depth: usize) -> String {
    if depth == 0 || p.args.is_empty() {
        return p.base.clone();
    }
    let args: Vec<String> = p.args.iter().map(|a| short_arg(a, depth - 1)).collect();
    format!("{}<{}>", p.base, args.join(","))
}

/// The label of `name` at `level`: 0 base name, 1 and 2 short template
/// arguments to that depth.
fn at_level(p: &Parts, level: usize) -> String {
    ellipsize(&render(p, level), LABEL_CHARS)
}

/// The label that shows what tells `p` apart from the other names of its
/// clash group: the base name, `…`, and its whole name from where the
/// group's names start to differ (backed up to a separator).
fn from_difference(p: &Parts, group: &[&Parts]) -> String {
    let me: Vec<char> = p.head.chars().collect();
    let mut common = me.len();
    for q in group {
        let n = me
            .iter()
            .zip(q.head.chars())
            .take_while(|(a, b)| **a == *b)
            .count();
        common = common.min(n);
    }
    if common >= me.len() {
        // Same name up to the parameters: nothing to show but the name.
        return ellipsize(&p.head, LABEL_CHARS);
    }
    let mut start = common;
    while start > 0 && !matches!(me[start - 1], '_' | ',' | '<' | ' ' | ':') {
        start -= 1;
    }
    let base_len = p.base.chars().count();
    let rest: String = me[start..].iter().collect();
    if rest.is_empty() {
        return ellipsize(&p.head, LABEL_CHARS);
    }
    // The difference inside the base name itself (`…_k_off_kernel` vs
    // `…_k_on_kernel`): its first characters, then from the difference.
    let lead: String = if start <= base_len {
        p.base.chars().take(DIFF_LEAD.min(start)).collect()
    } else {
        p.base.clone()
    };
    if lead.is_empty() {
        return ellipsize(&p.head, LABEL_CHARS);
    }
    ellipsize(&format!("{lead}…{rest}"), LABEL_CHARS)
}

/// Characters of a base name kept before `…` when names differ inside it.
const DIFF_LEAD: usize = 12;

/// A wrapper whose name says nothing (`Kernel2<cutlass_80_…>`,
/// `device_kernel<…>`): its label starts with its template arguments.
fn generic(p: &Parts) -> bool {
    let b = p.base.to_ascii_lowercase();
    let b = b.trim_end_matches(|c: char| c.is_ascii_digit());
    !p.args.is_empty()
        && matches!(
            b,
            "kernel" | "device_kernel" | "kernel_entry" | "global_kernel"
        )
}

/// Highest level before numbering: the part of the name that differs.
const LAST_LEVEL: usize = 3;

/// One label per name, in the order given: equal names get equal labels,
/// different names different ones, each at most [`LABEL_CHARS`] characters.
pub fn labels<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    shared_labels(names)
        .into_iter()
        .map(|l| l.to_string())
        .collect()
}

/// [`labels`], each distinct label stored once and shared by the names
/// that have it (a report with a row per launch repeats a few names).
pub fn shared_labels<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Arc<str>> {
    let names: Vec<&str> = names.into_iter().collect();
    // Distinct names in order of first appearance.
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut distinct: Vec<&str> = Vec::new();
    for n in &names {
        index.entry(n).or_insert_with(|| {
            distinct.push(n);
            distinct.len() - 1
        });
    }
    let parsed: Vec<Parts> = distinct.iter().map(|n| parts(n)).collect();
    let mut level: Vec<usize> = parsed.iter().map(|p| usize::from(generic(p))).collect();
    let mut label: Vec<String> = parsed
        .iter()
        .zip(&level)
        .map(|(p, &l)| at_level(p, l))
        .collect();
    loop {
        let mut by_label: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, l) in label.iter().enumerate() {
            by_label.entry(l.as_str()).or_default().push(i);
        }
        let clashes: Vec<Vec<usize>> = by_label.into_values().filter(|v| v.len() > 1).collect();
        if clashes.is_empty() {
            break;
        }
        let mut changed = false;
        for group in clashes {
            if group.iter().all(|&i| level[i] >= LAST_LEVEL) {
                // Even whole names read the same once shortened: number them
                // in order of appearance; the number always fits.
                let mut group = group;
                group.sort_unstable();
                for (k, &i) in group.iter().enumerate() {
                    let tag = format!(" #{}", k + 1);
                    let room = LABEL_CHARS.saturating_sub(tag.chars().count());
                    label[i] = format!("{}{tag}", ellipsize(&label[i], room));
                    level[i] = LAST_LEVEL + 1;
                }
                changed = true;
                continue;
            }
            let members: Vec<&Parts> = group.iter().map(|&i| &parsed[i]).collect();
            for &i in &group {
                if level[i] < LAST_LEVEL {
                    level[i] += 1;
                    label[i] = if level[i] == LAST_LEVEL {
                        from_difference(&parsed[i], &members)
                    } else {
                        at_level(&parsed[i], level[i])
                    };
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let shared: Vec<Arc<str>> = label.into_iter().map(Arc::from).collect();
    names
        .iter()
        .map(|n| Arc::clone(&shared[index[n]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names_when_they_are_enough() {
        let l = labels([
            "void gemm_v1(float *, float *, float *, int, int, int)",
            "randomInit(float *, int)",
            "gemm_v1(float*, float*, float*, int, int, int)",
        ]);
        // Two spellings of one name are two names; their labels differ.
        assert_eq!(l[1], "randomInit");
        assert_eq!((l[0].as_str(), l[2].as_str()), ("gemm_v1 #1", "gemm_v1 #2"));
    }

    #[test]
    fn template_arguments_tell_kernels_apart() {
        // The two `void at::elementwise_kernel<128…ce 1)]>(int, T3)`.
        let a = "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::FillFunctor<float>>(at::TensorIteratorBase &, const T1 &)::{lambda(int)#1}>(int, T3)";
        let b = "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<c10::Half>>(at::TensorIteratorBase &, const T1 &)::{lambda(int)#1}>(int, T3)";
        let c = "void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, (int)4>(long, at::PhiloxCudaState, T3, T4)";
        let l = labels([a, b, c, a]);
        assert_eq!(l[0], l[3]);
        assert_ne!(l[0], l[1]);
        // Base names clash; one level of arguments (`<128,4,gpu_kernel_impl>`)
        // is cut to the same 36 characters; two levels show the functor.
        assert_eq!(l[0], "elementwise_kernel<128,…illFunctor>>");
        assert_eq!(l[1], "elementwise_kernel<128,…unctor_add>>");
        assert_eq!(l[2], "distribution_elementwis…tride_kernel");
        for s in &l {
            assert!(s.chars().count() <= LABEL_CHARS, "{s}");
        }
    }

    #[test]
    fn names_that_differ_only_past_the_cut_are_numbered() {
        let long = "x".repeat(80);
        let a = format!("void k<{long}A{long}>(int)");
        let b = format!("void k<{long}B{long}>(int)");
        let l = labels([a.as_str(), b.as_str()]);
        assert_ne!(l[0], l[1]);
        assert!(l[0].ends_with(" #1") && l[1].ends_with(" #2"), "{l:?}");
        assert!(l.iter().all(|s| s.chars().count() <= LABEL_CHARS));
    }

    #[test]
    fn return_types_and_differences_inside_the_name() {
        // cuBLAS's GEMV kernel as ncu prints it, with its return type.
        let l = labels(["std::enable_if<!T7, void>::type internal::kernel<int, int, __nv_bfloat16, float, 0>(T13)"]);
        assert_eq!(l[0], "kernel<int,int,__nv_bfl…t16,float,0>");
        // Two cuBLAS sm90 GEMMs that differ in the middle of the name (the
        // real decode counters of the reference, H100).
        let l = labels([
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_on_kernel__5x_cublas",
        ]);
        assert_eq!(l[0], "sm90_xmma_ge…off_kernel__5x_cublas");
        assert_eq!(l[1], "sm90_xmma_ge…on_kernel__5x_cublas");
    }

    #[test]
    fn cutlass_gemm_keeps_its_configuration() {
        let l = labels([
            "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)",
            "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_tn_align8>(Params)",
        ]);
        assert_ne!(l[0], l[1]);
        assert_eq!(l[0], "Kernel2…256x128_32x3_tn_align8>");
        assert_eq!(l[1], "Kernel2…128x128_32x3_tn_align8>");
        // Alone, a generic wrapper shows its argument from the start.
        let one = labels([
            "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)",
        ]);
        assert_eq!(one[0], "Kernel2<cutlass_80_tens…3_tn_align8>");
    }
}
