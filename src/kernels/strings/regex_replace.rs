//! StaticRegexReplace: `pattern` (compiled once per kernel) replaced by `rewrite` in each element,
//! every match or the first (`replace_global`). Patterns run on regex-lite, whose syntax is RE2's
//! except: no Unicode classes (`\pL`, `\p{Greek}`) nor Unicode-aware `\w`/`\d`/`\s`/`\b` (RE2's are
//! ASCII too), no `\C`, `\Q..\E`, and elements must be valid UTF-8 (RE2 on TF reads bytes as
//! UTF-8 as well; invalid bytes are an InvalidArgument here). Rewrites are RE2's: `\0`..`\9` name
//! groups, `\\` is a backslash, with RE2's handling of bad ones (see `prepare`).

use crate::kernels::input;
use crate::ops::{Kernel, KernelContext, KernelFactory::Prepared, NodeAttrs, OpBuilder, Registry};
use crate::status::{invalid_argument, Result};
use crate::tensor::{DType, Tensor};

pub fn register(reg: &mut Registry) {
    reg.add(
        OpBuilder::new("StaticRegexReplace", Prepared(prepare))
            .fixed_input("input", DType::String)
            .string_attr("pattern", None)
            .string_attr("rewrite", None)
            .bool_attr("replace_global", true),
    );
}

enum Piece {
    Text(Vec<u8>),
    Group(usize),
}

struct Replace {
    re: regex_lite::Regex,
    rewrite: Vec<Piece>,
    global: bool,
    /// Every element stays as it is.
    noop: bool,
}

/// RE2's rewrite string: `\N` a group, `\\` a backslash. Parsed up to a `\` followed by anything
/// else, where RE2's Rewrite stops (false: the rewrite is incomplete). Also the largest group named.
fn parse_rewrite(r: &[u8]) -> (Vec<Piece>, usize, bool) {
    let mut out = Vec::new();
    let mut text = Vec::new();
    let mut max_group = 0;
    let mut complete = true;
    let mut it = r.iter();
    while let Some(&b) = it.next() {
        if b != b'\\' {
            text.push(b);
            continue;
        }
        match it.next() {
            Some(b'\\') => text.push(b'\\'),
            Some(&d) if d.is_ascii_digit() => {
                let n = usize::from(d - b'0');
                max_group = max_group.max(n);
                out.push(Piece::Text(std::mem::take(&mut text)));
                out.push(Piece::Group(n));
            }
            _ => {
                complete = false;
                break;
            }
        }
    }
    out.push(Piece::Text(text));
    // RE2 counts the groups named after a bad escape too (MaxSubmatch reads the whole string).
    while let Some(&b) = it.next() {
        if b == b'\\' {
            if let Some(&d) = it.next().filter(|d| d.is_ascii_digit()) {
                max_group = max_group.max(usize::from(d - b'0'));
            }
        }
    }
    (out, max_group, complete)
}

fn prepare(a: &NodeAttrs) -> Result<Box<dyn Kernel>> {
    let pattern = a.str("pattern")?;
    let re = regex_lite::Regex::new(&pattern)
        .map_err(|e| invalid_argument(format!("Invalid pattern: {pattern}, error: {e}")))?;
    let (rewrite, max_group, complete) = match a.get("rewrite")? {
        crate::ops::AttrValue::Str(s) => parse_rewrite(s),
        _ => return Err(invalid_argument("rewrite must be a string")),
    };
    let global = a.bool("replace_global")?;
    let re_groups = re.captures_len();
    Ok(Box::new(Replace {
        re,
        rewrite,
        global,
        // As RE2's Replace/GlobalReplace, which TF calls: a rewrite naming a group the pattern
        // lacks replaces nothing, nor does an incomplete one in Replace (GlobalReplace writes
        // what it could).
        noop: max_group >= re_groups || (!global && !complete),
    }))
}

impl Replace {
    fn apply(&self, s: &[u8]) -> Result<Vec<u8>> {
        let text = std::str::from_utf8(s).map_err(|_| {
            invalid_argument("StaticRegexReplace: an element is not valid UTF-8 (unsupported here)")
        })?;
        let mut out = Vec::new();
        let mut last = 0;
        let most = if self.global { usize::MAX } else { 1 };
        for caps in self.re.captures_iter(text).take(most) {
            let Some(m) = caps.get(0) else { continue };
            out.extend_from_slice(&s[last..m.start()]);
            for p in &self.rewrite {
                match p {
                    Piece::Text(t) => out.extend_from_slice(t),
                    Piece::Group(g) => {
                        if let Some(c) = caps.get(*g) {
                            out.extend_from_slice(c.as_str().as_bytes());
                        }
                    }
                }
            }
            last = m.end();
        }
        out.extend_from_slice(&s[last..]);
        Ok(out)
    }
}

impl Kernel for Replace {
    fn compute(&self, _: &mut KernelContext<'_>, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
        let x = input(inputs, 0, "input")?;
        x.strs()?;
        if self.noop {
            return Ok(crate::ops::one_output(x.clone()));
        }
        let mut out = super::strings_with_capacity(x.num_elements())?;
        for s in x.strs()? {
            out.push(self.apply(s)?);
        }
        Ok(crate::ops::one_output(Tensor::from_strings(
            x.shape().clone(),
            out,
        )?))
    }
}
