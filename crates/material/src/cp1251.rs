//! Windows-1251 (the Cyrillic ANSI code page the game's text files use),
//! by a table of our own: no dependency, and a bijection between the 256
//! bytes and 256 characters, so any byte string decodes and encodes back to
//! itself.
//!
//! Bytes 0x00..=0x7F are ASCII. The table below gives 0x80..=0xFF. Byte 0x98
//! is unassigned in Microsoft's table; like the WHATWG index (what browsers
//! and `encoding_rs` use) it decodes to U+0098, so it too comes back.
//! A test checks the whole table against `encoding_rs`.

/// The characters of bytes 0x80..=0xFF, in order.
#[rustfmt::skip]
pub const HIGH_HALF: [char; 128] = [
    // 0x80
    '\u{0402}', '\u{0403}', '\u{201A}', '\u{0453}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{20AC}', '\u{2030}', '\u{0409}', '\u{2039}', '\u{040A}', '\u{040C}', '\u{040B}', '\u{040F}',
    // 0x90
    '\u{0452}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{0098}', '\u{2122}', '\u{0459}', '\u{203A}', '\u{045A}', '\u{045C}', '\u{045B}', '\u{045F}',
    // 0xA0
    '\u{00A0}', '\u{040E}', '\u{045E}', '\u{0408}', '\u{00A4}', '\u{0490}', '\u{00A6}', '\u{00A7}',
    '\u{0401}', '\u{00A9}', '\u{0404}', '\u{00AB}', '\u{00AC}', '\u{00AD}', '\u{00AE}', '\u{0407}',
    // 0xB0
    '\u{00B0}', '\u{00B1}', '\u{0406}', '\u{0456}', '\u{0491}', '\u{00B5}', '\u{00B6}', '\u{00B7}',
    '\u{0451}', '\u{2116}', '\u{0454}', '\u{00BB}', '\u{0458}', '\u{0405}', '\u{0455}', '\u{0457}',
    // 0xC0: А..Я
    '\u{0410}', '\u{0411}', '\u{0412}', '\u{0413}', '\u{0414}', '\u{0415}', '\u{0416}', '\u{0417}',
    '\u{0418}', '\u{0419}', '\u{041A}', '\u{041B}', '\u{041C}', '\u{041D}', '\u{041E}', '\u{041F}',
    '\u{0420}', '\u{0421}', '\u{0422}', '\u{0423}', '\u{0424}', '\u{0425}', '\u{0426}', '\u{0427}',
    '\u{0428}', '\u{0429}', '\u{042A}', '\u{042B}', '\u{042C}', '\u{042D}', '\u{042E}', '\u{042F}',
    // 0xE0: а..я
    '\u{0430}', '\u{0431}', '\u{0432}', '\u{0433}', '\u{0434}', '\u{0435}', '\u{0436}', '\u{0437}',
    '\u{0438}', '\u{0439}', '\u{043A}', '\u{043B}', '\u{043C}', '\u{043D}', '\u{043E}', '\u{043F}',
    '\u{0440}', '\u{0441}', '\u{0442}', '\u{0443}', '\u{0444}', '\u{0445}', '\u{0446}', '\u{0447}',
    '\u{0448}', '\u{0449}', '\u{044A}', '\u{044B}', '\u{044C}', '\u{044D}', '\u{044E}', '\u{044F}',
];

/// The character of one byte.
pub fn decode_byte(byte: u8) -> char {
    if byte < 0x80 {
        char::from(byte)
    } else {
        HIGH_HALF[usize::from(byte - 0x80)]
    }
}

/// Decodes bytes to text (never fails: every byte has a character).
pub fn decode(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| decode_byte(b)).collect()
}

/// The byte of one character, if Windows-1251 has it.
pub fn encode_char(c: char) -> Option<u8> {
    if c.is_ascii() {
        return Some(c as u8);
    }
    HIGH_HALF
        .iter()
        .position(|&h| h == c)
        .map(|i| 0x80 + i as u8)
}

/// Encodes text; `None` names the first character it cannot encode.
pub fn encode(text: &str) -> std::result::Result<Vec<u8>, char> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        out.push(encode_char(c).ok_or(c)?);
    }
    Ok(out)
}
