//! The SQLite record format, value by value: varints, serial types and
//! their body lengths, and the values the page reader (`btree`) takes
//! (integers of every width, NULL, the constants 0 and 1, text borrowed
//! from its page), refusing the rest.
//!
//! The format: <https://www.sqlite.org/fileformat2.html> (1.6, 2.1).

/// A big-endian u32 at the start of `b` (4 bytes at least).
pub(super) fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// A varint at `b[at..]` (1-9 bytes, big-endian, 7 bits a byte, all 8 in
/// the ninth), with its length; `None` when it runs past `b`.
#[inline]
pub(super) fn varint(b: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for i in 0..9 {
        let byte = *b.get(at + i)?;
        if i == 8 {
            return Some(((v << 8) | u64::from(byte), 9));
        }
        v = (v << 7) | u64::from(byte & 0x7F);
        if byte < 0x80 {
            return Some((v, i + 1));
        }
    }
    None
}

/// One decoded value; text as a place in the leaf page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Val {
    Null,
    Int(i64),
    Text {
        at: u32,
        len: u32,
    },
    /// Something not text in a text field (an integer): reads as no text,
    /// as `sqlite3_column_type` says it is not text.
    NotText,
}

/// Body bytes of a serial type; `None` for the reserved types 10 and 11.
#[inline]
pub(super) fn serial_len(t: u64) -> Option<usize> {
    Some(match t {
        0 | 8 | 9 => 0,
        1..=4 => t as usize,
        5 => 6,
        6 | 7 => 8,
        10 | 11 => return None,
        _ => usize::try_from((t - 12) / 2).ok()?,
    })
}

/// The value of serial type `t` at `rec[o..]`: integers and NULL in any
/// field, text in a text field; `None` (a refusal) for reals, blobs and
/// text where an integer is read (SQLite would convert them).
pub(super) fn value(rec: &[u8], t: u64, o: usize, text: bool, base: u32) -> Option<Val> {
    Some(match t {
        0 => Val::Null,
        8 => Val::Int(0),
        9 => Val::Int(1),
        1..=6 => {
            let n = serial_len(t)?;
            let b = rec.get(o..o + n)?;
            // Big-endian two's complement, sign-extended from its width.
            let mut v = i64::from(b[0] as i8);
            for &x in &b[1..] {
                v = (v << 8) | i64::from(x);
            }
            Val::Int(v)
        }
        // A real or a blob where text is read: no text, as SQLite says.
        7 if text => Val::NotText,
        t if t >= 12 && t % 2 == 0 && text => Val::NotText,
        t if t >= 13 && text => {
            let len = serial_len(t)?;
            rec.get(o..o + len)?;
            Val::Text {
                at: base + o as u32,
                len: len as u32,
            }
        }
        _ => return None,
    })
    .map(|v| match v {
        Val::Int(_) if text => Val::NotText,
        v => v,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_decode_every_length_and_stop_at_the_end() {
        assert_eq!(varint(&[0x05], 0), Some((5, 1)));
        assert_eq!(varint(&[0x81, 0x00], 0), Some((128, 2)));
        // Nine bytes: the ninth gives all 8 bits (0xFF.. is -1 as i64).
        assert_eq!(varint(&[0xFF; 9], 0), Some((u64::MAX, 9)));
        assert_eq!(varint(&[0x81], 0), None);
        assert_eq!(varint(&[], 0), None);
    }

    #[test]
    fn integers_sign_extend_from_their_width() {
        let rec = [0xFF, 0x80, 0x00, 0x01, 0x00, 0x00, 0x00];
        assert_eq!(value(&rec, 1, 0, false, 0), Some(Val::Int(-1)));
        assert_eq!(value(&rec, 2, 1, false, 0), Some(Val::Int(-32768)));
        assert_eq!(value(&rec, 3, 2, false, 0), Some(Val::Int(256)));
        assert_eq!(value(&rec, 8, 0, false, 0), Some(Val::Int(0)));
        // A real, a blob or text in an integer column: refused.
        assert_eq!(value(&rec, 7, 0, false, 0), None);
        assert_eq!(value(&rec, 14, 0, false, 0), None);
        assert_eq!(value(&rec, 15, 0, false, 0), None);
        // An integer in a text column reads as no text.
        assert_eq!(value(&rec, 1, 0, true, 0), Some(Val::NotText));
        assert_eq!(
            value(&rec, 15, 1, true, 10),
            Some(Val::Text { at: 11, len: 1 })
        );
    }
}
