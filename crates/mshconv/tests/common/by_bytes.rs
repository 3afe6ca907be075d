//! An NRes archive written byte by byte, not by the `nres` crate: the
//! oracle of the tests of archives whose entries share or overlap their
//! payloads (`#[path]`-included by the CLI's and the service's tests).

/// One `payload` after the header, then one MSH directory entry per `(name,
/// range)`, its payload being that byte range of `payload`: entries may
/// share it or overlap. The sort table lists the names in the game's order.
pub fn archive_by_bytes(
    payload: &[u8],
    entries: &[(impl AsRef<str>, std::ops::Range<u32>)],
) -> Vec<u8> {
    let padded = payload.len().div_ceil(8) * 8;
    let total = 16 + padded + 64 * entries.len();
    let mut out = b"NRes".to_vec();
    out.extend_from_slice(&0x100u32.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(payload);
    out.resize(16 + padded, 0);
    let mut sorted: Vec<usize> = (0..entries.len()).collect();
    sorted.sort_by_key(|&i| entries[i].0.as_ref().to_ascii_uppercase());
    for (i, (name, range)) in entries.iter().enumerate() {
        let name = name.as_ref();
        let mut record = [0u8; 64];
        record[0..4].copy_from_slice(b"MSH\0");
        record[12..16].copy_from_slice(&(range.end - range.start).to_le_bytes());
        record[20..20 + name.len()].copy_from_slice(name.as_bytes());
        record[56..60].copy_from_slice(&(16 + range.start).to_le_bytes());
        record[60..64].copy_from_slice(&(sorted[i] as u32).to_le_bytes());
        out.extend_from_slice(&record);
    }
    out
}
