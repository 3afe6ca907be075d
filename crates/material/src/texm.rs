//! Texm: an image with its mip chain (entries of `Textures.lib` and
//! `LightMap.lib`).
//!
//! ```text
//! u32 magic 'Texm'; u32 width > 0; u32 height > 0; u32 mip_count > 0;
//! u32 flags4; u32 flags5; u32 unknown6 (all three kept raw); u32 format
//! [palette: 256 x 4 bytes, format 0 only]
//! mip levels 0..mip_count-1: level i is max(1, width >> i) x max(1, height >> i)
//!   pixels, rows top to bottom, no padding
//! [Page chunk: u32 'Page'; u32 rect_count; rect_count x { i16 x, width, y, height }]
//! ```
//!
//! The payload is exactly that: every size is summed with overflow checks
//! and compared with the input's length before anything is copied, so a
//! header claiming a huge image in a small payload allocates nothing big.
//!
//! Pixels convert to RGBA8 ([`Texm::decode_rgba8`]) and back
//! ([`encode_level`]); short channels are widened by [`widen`] and narrowed
//! by [`narrow`], which recovers every widened value exactly, so an unedited
//! image converts back to its identical bits (for format 0 and 888, pass the
//! original level as the reference: it keeps the chosen index among equal
//! palette colours and the unused byte).

use crate::error::{Error, ErrorKind, Result};

/// `Texm` as an NRes `type_id`, and the payload's magic.
pub const TEXM_MAGIC: u32 = 0x6D78_6554;

/// The `Page` chunk's magic.
pub const PAGE_MAGIC: u32 = 0x6567_6150;

/// The header's size.
pub const HEADER_BYTES: usize = 32;

/// Entries in the palette of format 0.
pub const PALETTE_ENTRIES: usize = 256;

/// **Uncertain.** Where R, G, B and A are in a palette entry's 4 bytes
/// (byte index of each). The public notes say R, G, B, A.
pub const PALETTE_CHANNEL_BYTES: [usize; 4] = [0, 1, 2, 3];

/// **Uncertain.** What the encoder puts in the unused byte of format 888
/// when no reference level supplies the original one.
pub const RGB888_UNUSED_FILL: u8 = 0;

/// A pixel format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PixelFormat {
    /// 0: one byte, an index into the palette.
    Indexed8,
    /// 565: u16, R 15-11, G 10-5, B 4-0; opaque.
    Rgb565,
    /// 556: u16, R 15-11, G 10-6, B 5-0; opaque (seen in the loader, not in data).
    Rgb556,
    /// 4444: u16, A 15-12, R 11-8, G 7-4, B 3-0.
    Argb4444,
    /// 88: u16, L 15-8, A 7-0 (seen in the loader only).
    La88,
    /// 888: u32, R 7-0, G 15-8, B 23-16, bits 31-24 unused (kept); opaque.
    Rgb888,
    /// 8888: u32, A 7-0, R 15-8, G 23-16, B 31-24 ([`ARGB8888_LAYOUT`]).
    Argb8888,
}

/// One channel in a packed pixel: its lowest bit and its width in bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Channel {
    /// The lowest bit.
    pub shift: u32,
    /// Bits (4 to 8).
    pub bits: u32,
}

const fn ch(shift: u32, bits: u32) -> Channel {
    Channel { shift, bits }
}

/// Where the channels of a packed format are: R, G, B and (for formats with
/// alpha) A. Format 88 puts its L in R, G and B alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Bytes per pixel (the pixel is a little-endian word of this size).
    pub bytes: usize,
    /// Red.
    pub r: Channel,
    /// Green.
    pub g: Channel,
    /// Blue.
    pub b: Channel,
    /// Alpha, if the format has it (else opaque).
    pub a: Option<Channel>,
}

/// 565.
pub const RGB565_LAYOUT: Layout = Layout {
    bytes: 2,
    r: ch(11, 5),
    g: ch(5, 6),
    b: ch(0, 5),
    a: None,
};
/// 556.
pub const RGB556_LAYOUT: Layout = Layout {
    bytes: 2,
    r: ch(11, 5),
    g: ch(6, 5),
    b: ch(0, 6),
    a: None,
};
/// 4444.
pub const ARGB4444_LAYOUT: Layout = Layout {
    bytes: 2,
    r: ch(8, 4),
    g: ch(4, 4),
    b: ch(0, 4),
    a: Some(ch(12, 4)),
};
/// 88: L in bits 15-8 (R, G, B), A in 7-0.
pub const LA88_LAYOUT: Layout = Layout {
    bytes: 2,
    r: ch(8, 8),
    g: ch(8, 8),
    b: ch(8, 8),
    a: Some(ch(0, 8)),
};
/// 888: bits 31-24 unused.
pub const RGB888_LAYOUT: Layout = Layout {
    bytes: 4,
    r: ch(0, 8),
    g: ch(8, 8),
    b: ch(16, 8),
    a: None,
};
/// **Uncertain.** 8888 as the public decoder reads it: A in bits 7-0, R 15-8,
/// G 23-16, B 31-24 (so the bytes in memory are A, R, G, B).
pub const ARGB8888_LAYOUT: Layout = Layout {
    bytes: 4,
    r: ch(8, 8),
    g: ch(16, 8),
    b: ch(24, 8),
    a: Some(ch(0, 8)),
};

/// The formats: the header's value, the format, bytes per pixel.
pub const FORMATS: [(u32, PixelFormat, usize); 7] = [
    (0, PixelFormat::Indexed8, 1),
    (565, PixelFormat::Rgb565, 2),
    (556, PixelFormat::Rgb556, 2),
    (4444, PixelFormat::Argb4444, 2),
    (88, PixelFormat::La88, 2),
    (888, PixelFormat::Rgb888, 4),
    (8888, PixelFormat::Argb8888, 4),
];

impl PixelFormat {
    /// The format of a header value.
    pub fn from_code(code: u32) -> Option<PixelFormat> {
        FORMATS.iter().find(|f| f.0 == code).map(|f| f.1)
    }

    /// The header value.
    pub fn code(self) -> u32 {
        FORMATS.iter().find(|f| f.1 == self).map_or(0, |f| f.0)
    }

    /// Bytes per pixel.
    pub fn bytes_per_pixel(self) -> usize {
        FORMATS.iter().find(|f| f.1 == self).map_or(1, |f| f.2)
    }

    /// The channel layout (`None` for the indexed format).
    pub fn layout(self) -> Option<Layout> {
        match self {
            PixelFormat::Indexed8 => None,
            PixelFormat::Rgb565 => Some(RGB565_LAYOUT),
            PixelFormat::Rgb556 => Some(RGB556_LAYOUT),
            PixelFormat::Argb4444 => Some(ARGB4444_LAYOUT),
            PixelFormat::La88 => Some(LA88_LAYOUT),
            PixelFormat::Rgb888 => Some(RGB888_LAYOUT),
            PixelFormat::Argb8888 => Some(ARGB8888_LAYOUT),
        }
    }
}

/// **Uncertain choice, one function.** Widens a `bits`-wide channel value
/// (4 to 8 bits) to 8 bits by repeating its high bits below it
/// (`v5 -> v << 3 | v >> 2`, `v6 -> v << 2 | v >> 4`, `v4 -> v * 17`): what
/// Direct3D-era hardware does. The public decoder rounds instead
/// (`(v * 255 + 15) / 31`); the two differ by at most 1.
pub fn widen(value: u32, bits: u32) -> u8 {
    debug_assert!((4..=8).contains(&bits));
    let v = value & ((1 << bits) - 1);
    ((v << (8 - bits)) | (v >> (2 * bits - 8))) as u8
}

/// Narrows an 8-bit value to `bits` (4 to 8) by rounding to the nearest
/// representable one: `narrow(widen(v, b), b) == v` for every `v`.
pub fn narrow(value: u8, bits: u32) -> u32 {
    let max = (1u32 << bits) - 1;
    (u32::from(value) * max + 127) / 255
}

/// **Uncertain choice.** The grey level of an RGB colour for format 88 (the
/// Rec. 601 weights in 1/256: exact for a grey colour, so a decoded 88 pixel
/// encodes back to itself).
pub const LUMA_WEIGHTS: [u32; 3] = [77, 150, 29];

/// A rectangle of the `Page` chunk, in pixels of mip 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PageRect {
    /// Left.
    pub x: i16,
    /// Width.
    pub width: i16,
    /// Top.
    pub y: i16,
    /// Height.
    pub height: i16,
}

/// A 256-entry palette of 4 bytes each (see [`PALETTE_CHANNEL_BYTES`]).
pub type Palette = [[u8; 4]; PALETTE_ENTRIES];

/// An RGBA8 image: `width * height * 4` bytes, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rgba8Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixels, R, G, B, A each.
    pub pixels: Vec<u8>,
}

/// A parsed Texm payload.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Texm {
    /// Width of mip 0.
    pub width: u32,
    /// Height of mip 0.
    pub height: u32,
    /// Raw (uncertain meaning).
    pub flags4: u32,
    /// Raw (takes part in the loader's choice of base mip level; uncertain).
    pub flags5: u32,
    /// Raw (unknown).
    pub unknown6: u32,
    /// The pixel format.
    pub format: PixelFormat,
    /// The palette: present exactly for [`PixelFormat::Indexed8`].
    pub palette: Option<Box<Palette>>,
    /// The mip levels' raw bytes, level 0 first.
    pub levels: Vec<Vec<u8>>,
    /// The `Page` chunk's rectangles, when the chunk is present (it may be empty).
    pub page: Option<Vec<PageRect>>,
}

/// The size of mip level `level` of a `width` x `height` image.
pub fn level_size(width: u32, height: u32, level: u32) -> (u32, u32) {
    let shrink = |v: u32| v.checked_shr(level).unwrap_or(0).max(1);
    (shrink(width), shrink(height))
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

impl Texm {
    /// Parses a Texm payload.
    pub fn parse(bytes: &[u8]) -> Result<Texm> {
        use ErrorKind::*;
        if bytes.len() < HEADER_BYTES {
            return Err(Error::at(
                TexmTruncated,
                bytes.len(),
                format!(
                    "{} bytes, shorter than the {HEADER_BYTES}-byte header",
                    bytes.len()
                ),
            ));
        }
        if read_u32(bytes, 0) != TEXM_MAGIC {
            return Err(Error::at(TexmBadMagic, 0, "the magic is not `Texm`"));
        }
        let width = read_u32(bytes, 4);
        let height = read_u32(bytes, 8);
        let mip_count = read_u32(bytes, 12);
        if width == 0 {
            return Err(Error::at(TexmZeroSize, 4, "width is zero"));
        }
        if height == 0 {
            return Err(Error::at(TexmZeroSize, 8, "height is zero"));
        }
        if mip_count == 0 {
            return Err(Error::at(TexmZeroMips, 12, "mip_count is zero"));
        }
        let code = read_u32(bytes, 28);
        let format = PixelFormat::from_code(code)
            .ok_or_else(|| Error::at(TexmBadFormat, 28, format!("unknown pixel format {code}")))?;
        let mut at = HEADER_BYTES;
        let palette = if format == PixelFormat::Indexed8 {
            let need = PALETTE_ENTRIES * 4;
            if bytes.len() - at < need {
                return Err(Error::at(
                    TexmTruncated,
                    at,
                    format!(
                        "the palette needs {need} bytes, {} remain",
                        bytes.len() - at
                    ),
                ));
            }
            let mut p = Box::new([[0u8; 4]; PALETTE_ENTRIES]);
            for (e, c) in p.iter_mut().zip(bytes[at..at + need].chunks_exact(4)) {
                e.copy_from_slice(c);
            }
            at += need;
            Some(p)
        } else {
            None
        };
        // Walk the chain once without copying: each level takes at least one
        // byte, so this stops within len + 1 steps whatever mip_count claims.
        let bpp = format.bytes_per_pixel() as u64;
        let chain_start = at;
        let mut end = at as u64;
        for level in 0..mip_count {
            let (w, h) = level_size(width, height, level);
            let size = u64::from(w) * u64::from(h);
            let fits = size
                .checked_mul(bpp)
                .and_then(|s| end.checked_add(s))
                .filter(|&e| e <= bytes.len() as u64);
            match fits {
                Some(e) => end = e,
                None => {
                    return Err(Error::at(
                        TexmTruncated,
                        end as usize,
                        format!(
                            "mip level {level} ({w} x {h}, format {code}) does not fit in the {} bytes left",
                            bytes.len() as u64 - end
                        ),
                    ))
                }
            }
        }
        let end = end as usize;
        let page = if end == bytes.len() {
            None
        } else {
            let rest = bytes.len() - end;
            if rest < 8 || read_u32(bytes, end) != PAGE_MAGIC {
                return Err(Error::at(
                    TexmBadPage,
                    end,
                    format!("{rest} bytes after the mip chain are not a Page chunk"),
                ));
            }
            let count = read_u32(bytes, end + 4) as u64;
            if 8 + 8 * count != rest as u64 {
                return Err(Error::at(
                    TexmBadPageSize,
                    end + 4,
                    format!(
                        "a Page chunk of {count} rectangles in {rest} bytes (needs {})",
                        8 + 8 * count
                    ),
                ));
            }
            let i16_at = |at: usize| i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            Some(
                (0..count as usize)
                    .map(|i| {
                        let r = end + 8 + 8 * i;
                        PageRect {
                            x: i16_at(r),
                            width: i16_at(r + 2),
                            y: i16_at(r + 4),
                            height: i16_at(r + 6),
                        }
                    })
                    .collect(),
            )
        };
        let mut levels = Vec::with_capacity(mip_count as usize);
        let mut at = chain_start;
        for level in 0..mip_count {
            let (w, h) = level_size(width, height, level);
            let size = w as usize * h as usize * bpp as usize;
            levels.push(bytes[at..at + size].to_vec());
            at += size;
        }
        Ok(Texm {
            width,
            height,
            flags4: read_u32(bytes, 16),
            flags5: read_u32(bytes, 20),
            unknown6: read_u32(bytes, 24),
            format,
            palette,
            levels,
            page,
        })
    }

    /// Checks the value fits the format: sizes, palette, level sizes.
    fn check(&self) -> Result<()> {
        let bad = |m: String| Error::new(ErrorKind::TexmBadLayout, m);
        if self.width == 0 || self.height == 0 {
            return Err(Error::new(
                ErrorKind::TexmZeroSize,
                "width or height is zero",
            ));
        }
        if self.levels.is_empty() {
            return Err(Error::new(ErrorKind::TexmZeroMips, "no mip level"));
        }
        if u32::try_from(self.levels.len()).is_err() {
            return Err(bad("too many mip levels".into()));
        }
        if self.palette.is_some() != (self.format == PixelFormat::Indexed8) {
            return Err(bad("a palette goes with format 0, and only with it".into()));
        }
        let bpp = self.format.bytes_per_pixel() as u128;
        for (i, l) in self.levels.iter().enumerate() {
            let (w, h) = level_size(self.width, self.height, i as u32);
            // u128: the product of two u32 and 4 cannot overflow it.
            let want = u128::from(w) * u128::from(h) * bpp;
            if l.len() as u128 != want {
                return Err(bad(format!(
                    "mip level {i} has {} bytes, {w} x {h} needs {want}",
                    l.len()
                )));
            }
        }
        if let Some(p) = &self.page {
            if u32::try_from(p.len()).is_err() {
                return Err(bad("too many Page rectangles".into()));
            }
        }
        Ok(())
    }

    /// Writes the payload: an unedited texture gives its input byte for byte.
    pub fn write(&self) -> Result<Vec<u8>> {
        self.check()?;
        let size = HEADER_BYTES
            + self.palette.as_ref().map_or(0, |_| PALETTE_ENTRIES * 4)
            + self.levels.iter().map(Vec::len).sum::<usize>()
            + self.page.as_ref().map_or(0, |p| 8 + 8 * p.len());
        let mut out = Vec::with_capacity(size);
        for v in [
            TEXM_MAGIC,
            self.width,
            self.height,
            self.levels.len() as u32,
            self.flags4,
            self.flags5,
            self.unknown6,
            self.format.code(),
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        if let Some(p) = &self.palette {
            for e in p.iter() {
                out.extend_from_slice(e);
            }
        }
        for l in &self.levels {
            out.extend_from_slice(l);
        }
        if let Some(p) = &self.page {
            out.extend_from_slice(&PAGE_MAGIC.to_le_bytes());
            out.extend_from_slice(&(p.len() as u32).to_le_bytes());
            for r in p {
                for v in [r.x, r.width, r.y, r.height] {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        Ok(out)
    }

    /// Mip level 0 as RGBA8.
    pub fn decode_rgba8(&self) -> Result<Rgba8Image> {
        self.decode_level_rgba8(0)
    }

    /// One mip level as RGBA8.
    pub fn decode_level_rgba8(&self, level: usize) -> Result<Rgba8Image> {
        self.check()?;
        let data = self
            .levels
            .get(level)
            .ok_or_else(|| Error::new(ErrorKind::TexmBadLayout, format!("no mip level {level}")))?;
        let (width, height) = level_size(self.width, self.height, level as u32);
        let pixels = decode_pixels(self.format, self.palette.as_deref(), data);
        Ok(Rgba8Image {
            width,
            height,
            pixels,
        })
    }

    /// Replaces mip level `level` by RGBA8 pixels encoded in the texture's
    /// format; the old level is the reference (see [`encode_level`]).
    pub fn set_level_rgba8(&mut self, level: usize, rgba: &[u8]) -> Result<()> {
        self.check()?;
        let (w, h) = level_size(self.width, self.height, level as u32);
        let old = self
            .levels
            .get(level)
            .ok_or_else(|| Error::new(ErrorKind::TexmBadLayout, format!("no mip level {level}")))?;
        let new = encode_level(self.format, self.palette.as_deref(), w, h, rgba, Some(old))?;
        self.levels[level] = new;
        Ok(())
    }

    /// A texture of `mip_count` levels (at least 1) from RGBA8 pixels: level
    /// 0 is `image`, each next one its [`downsample`]; flags zero, no Page
    /// chunk.
    pub fn from_rgba8_with_mips(
        image: &Rgba8Image,
        format: PixelFormat,
        palette: Option<Palette>,
        mip_count: u32,
    ) -> Result<Texm> {
        if mip_count == 0 {
            return Err(Error::new(ErrorKind::TexmZeroMips, "no mip level"));
        }
        let mut texm = Texm::from_rgba8(image, format, palette)?;
        let mut level = image.clone();
        for _ in 1..mip_count {
            level = downsample(&level);
            let bytes = encode_level(
                format,
                texm.palette.as_deref(),
                level.width,
                level.height,
                &level.pixels,
                None,
            )?;
            texm.levels.push(bytes);
        }
        Ok(texm)
    }

    /// A one-level texture of the given format from RGBA8 pixels (format 0
    /// needs a palette; the pixels take their nearest entries).
    pub fn from_rgba8(
        image: &Rgba8Image,
        format: PixelFormat,
        palette: Option<Palette>,
    ) -> Result<Texm> {
        if image.width == 0 || image.height == 0 {
            return Err(Error::new(
                ErrorKind::TexmZeroSize,
                "width or height is zero",
            ));
        }
        let palette = palette.map(Box::new);
        if palette.is_some() != (format == PixelFormat::Indexed8) {
            return Err(Error::new(
                ErrorKind::TexmBadLayout,
                "a palette goes with format 0, and only with it",
            ));
        }
        let level = encode_level(
            format,
            palette.as_deref(),
            image.width,
            image.height,
            &image.pixels,
            None,
        )?;
        Ok(Texm {
            width: image.width,
            height: image.height,
            flags4: 0,
            flags5: 0,
            unknown6: 0,
            format,
            palette,
            levels: vec![level],
            page: None,
        })
    }
}

/// The next mip level of an RGBA8 image: `max(1, width >> 1)` x
/// `max(1, height >> 1)`, each pixel the rounded mean of its 2 x 2 source
/// block (clamped at the edges; a last odd row or column is dropped, as the
/// size rule implies). The image must not be empty.
pub fn downsample(image: &Rgba8Image) -> Rgba8Image {
    let (w, h) = (image.width as usize, image.height as usize);
    let (nw, nh) = ((w >> 1).max(1), (h >> 1).max(1));
    let mut pixels = Vec::with_capacity(nw * nh * 4);
    for y in 0..nh {
        for x in 0..nw {
            let ys = [(2 * y).min(h - 1), (2 * y + 1).min(h - 1)];
            let xs = [(2 * x).min(w - 1), (2 * x + 1).min(w - 1)];
            for c in 0..4 {
                let sum: u32 = ys
                    .iter()
                    .flat_map(|&sy| xs.iter().map(move |&sx| (sy * w + sx) * 4 + c))
                    .map(|i| u32::from(image.pixels[i]))
                    .sum();
                pixels.push(((sum + 2) / 4) as u8);
            }
        }
    }
    Rgba8Image {
        width: nw as u32,
        height: nh as u32,
        pixels,
    }
}

fn palette_rgba(e: &[u8; 4]) -> [u8; 4] {
    PALETTE_CHANNEL_BYTES.map(|i| e[i])
}

fn decode_pixel(layout: &Layout, word: u32) -> [u8; 4] {
    let get = |c: Channel| widen(word >> c.shift, c.bits);
    [
        get(layout.r),
        get(layout.g),
        get(layout.b),
        layout.a.map_or(255, get),
    ]
}

fn decode_pixels(format: PixelFormat, palette: Option<&Palette>, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / format.bytes_per_pixel() * 4);
    match format.layout() {
        None => {
            let p = palette.expect("checked: format 0 has a palette");
            for &i in data {
                out.extend_from_slice(&palette_rgba(&p[usize::from(i)]));
            }
        }
        Some(layout) => {
            for px in data.chunks_exact(layout.bytes) {
                let word = px.iter().rev().fold(0u32, |w, &b| (w << 8) | u32::from(b));
                out.extend_from_slice(&decode_pixel(&layout, word));
            }
        }
    }
    out
}

fn encode_pixel(layout: &Layout, format: PixelFormat, rgba: [u8; 4], keep: u32) -> u32 {
    let put = |c: Channel, v: u8| narrow(v, c.bits) << c.shift;
    let [r, g, b, a] = rgba;
    let mut word = if format == PixelFormat::La88 {
        let l = (LUMA_WEIGHTS[0] * u32::from(r)
            + LUMA_WEIGHTS[1] * u32::from(g)
            + LUMA_WEIGHTS[2] * u32::from(b)
            + 128)
            >> 8;
        put(layout.r, l.min(255) as u8)
    } else {
        put(layout.r, r) | put(layout.g, g) | put(layout.b, b)
    };
    if let Some(c) = layout.a {
        word |= put(c, a);
    }
    if format == PixelFormat::Rgb888 {
        word |= keep << 24;
    }
    word
}

fn nearest(palette: &Palette, rgba: [u8; 4]) -> u8 {
    let mut best = (u32::MAX, 0u8);
    for (i, e) in palette.iter().enumerate() {
        let c = palette_rgba(e);
        let d: u32 = (0..4)
            .map(|k| (i32::from(c[k]) - i32::from(rgba[k])).pow(2) as u32)
            .sum();
        if d < best.0 {
            best = (d, i as u8);
            if d == 0 {
                break;
            }
        }
    }
    best.1
}

/// Encodes RGBA8 pixels (`width * height * 4` bytes) as one level of
/// `format`. Short channels are narrowed by [`narrow`]; formats without
/// alpha drop it; format 88 takes the grey level ([`LUMA_WEIGHTS`]);
/// format 0 takes each pixel's nearest palette entry.
///
/// `reference`, the level's original bytes if any (same size), keeps what
/// RGBA8 cannot say: the unused byte of 888 (else [`RGB888_UNUSED_FILL`]),
/// and for format 0 the original index when its colour is the pixel's.
pub fn encode_level(
    format: PixelFormat,
    palette: Option<&Palette>,
    width: u32,
    height: u32,
    rgba: &[u8],
    reference: Option<&[u8]>,
) -> Result<Vec<u8>> {
    let bad = |m: String| Error::new(ErrorKind::TexmBadLayout, m);
    let pixels = u128::from(width) * u128::from(height);
    if rgba.len() as u128 != pixels * 4 {
        return Err(bad(format!(
            "{} RGBA bytes for {width} x {height} pixels",
            rgba.len()
        )));
    }
    let bpp = format.bytes_per_pixel();
    let reference = reference.filter(|r| r.len() as u128 == pixels * bpp as u128);
    let mut out = Vec::with_capacity(rgba.len() / 4 * bpp);
    match format.layout() {
        None => {
            let p = palette.ok_or_else(|| bad("format 0 needs a palette".into()))?;
            for (i, px) in rgba.chunks_exact(4).enumerate() {
                let px = [px[0], px[1], px[2], px[3]];
                let index = match reference.map(|r| r[i]) {
                    Some(old) if palette_rgba(&p[usize::from(old)]) == px => old,
                    _ => nearest(p, px),
                };
                out.push(index);
            }
        }
        Some(layout) => {
            for (i, px) in rgba.chunks_exact(4).enumerate() {
                let keep = match reference {
                    Some(r) if format == PixelFormat::Rgb888 => u32::from(r[i * 4 + 3]),
                    _ => u32::from(RGB888_UNUSED_FILL),
                };
                let word = encode_pixel(&layout, format, [px[0], px[1], px[2], px[3]], keep);
                out.extend_from_slice(&word.to_le_bytes()[..bpp]);
            }
        }
    }
    Ok(out)
}
