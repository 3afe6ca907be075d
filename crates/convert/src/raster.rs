//! Decoding the images a glTF or an OBJ's `.mtl` brings (PNG, JPEG, WebP) to
//! RGBA8, for the materials import that turns them into game textures
//! (docs/MATERIALS.md, "The way back").
//!
//! Each decoder is a well-kept pure-Rust crate (`png`, `jpeg-decoder`,
//! `image-webp`); this module only checks the size the header claims against
//! [`MAX_SIDE`] and [`MAX_PIXELS`] *before* any pixel buffer is allocated,
//! and widens every colour type to 8-bit RGBA. Errors are `image.unsupported`
//! (not one of the three formats), `image.invalid` (the decoder refused the
//! bytes) and `image.too_large`.

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use mshconv_material::texm::Rgba8Image;
use std::io::Cursor;

/// The largest width or height accepted (the game's textures are far
/// smaller; this bounds what a small, highly compressed file can make us
/// allocate).
pub const MAX_SIDE: u32 = 4096;
/// The most pixels accepted (`MAX_PIXELS * 4` bytes = 64 MiB of RGBA8).
pub const MAX_PIXELS: u64 = 4096 * 4096;

/// An image container format this module decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG (any colour type and bit depth; the first frame of an APNG).
    Png,
    /// Baseline or progressive JPEG (greyscale, RGB, CMYK).
    Jpeg,
    /// WebP, lossy or lossless (the first frame of an animation).
    Webp,
}

impl ImageFormat {
    /// The format the bytes start with (magic numbers), if any.
    pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageFormat::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(ImageFormat::Jpeg)
        } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(ImageFormat::Webp)
        } else {
            None
        }
    }

    /// The format of a glTF `mimeType`.
    pub fn from_mime(mime: &str) -> Option<ImageFormat> {
        match mime {
            "image/png" => Some(ImageFormat::Png),
            "image/jpeg" => Some(ImageFormat::Jpeg),
            "image/webp" => Some(ImageFormat::Webp),
            _ => None,
        }
    }
}

fn invalid(what: &str, detail: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        Code::ImageInvalid.code(),
        format!("{what}: not a decodable image: {detail}"),
    )
}

/// Checks a claimed size against the limits.
fn check_size(what: &str, width: u32, height: u32) -> Result<()> {
    if width == 0 || height == 0 {
        return Err(invalid(what, format!("size {width} x {height}")));
    }
    if width > MAX_SIDE || height > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(Error::new(
            ErrorKind::Unsupported,
            Code::ImageTooLarge.code(),
            format!(
                "{what}: {width} x {height} pixels is over the limit ({MAX_SIDE} per side): scale it down"
            ),
        ));
    }
    Ok(())
}

/// Decodes an image to RGBA8 (rows top to bottom). The format is taken from
/// the bytes (their magic number); `what` names the image in errors.
pub fn decode(bytes: &[u8], what: &str) -> Result<Rgba8Image> {
    match ImageFormat::sniff(bytes) {
        Some(ImageFormat::Png) => decode_png(bytes, what),
        Some(ImageFormat::Jpeg) => decode_jpeg(bytes, what),
        Some(ImageFormat::Webp) => decode_webp(bytes, what),
        None => Err(Error::new(
            ErrorKind::Unsupported,
            Code::ImageUnsupported.code(),
            format!("{what}: not a PNG, JPEG or WebP image"),
        )),
    }
}

/// RGBA8 from `n`-channel 8-bit pixels (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA).
fn widen_channels(data: &[u8], channels: usize, width: u32, height: u32) -> Rgba8Image {
    let count = width as usize * height as usize;
    let mut pixels = Vec::with_capacity(count * 4);
    for p in data.chunks_exact(channels).take(count) {
        match channels {
            1 => pixels.extend_from_slice(&[p[0], p[0], p[0], 255]),
            2 => pixels.extend_from_slice(&[p[0], p[0], p[0], p[1]]),
            3 => pixels.extend_from_slice(&[p[0], p[1], p[2], 255]),
            _ => pixels.extend_from_slice(&p[..4]),
        }
    }
    Rgba8Image {
        width,
        height,
        pixels,
    }
}

fn decode_png(bytes: &[u8], what: &str) -> Result<Rgba8Image> {
    let limits = png::Limits {
        bytes: (MAX_PIXELS * 8) as usize,
    };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    // Palette and low bit depths expanded, 16-bit channels cut to 8.
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| invalid(what, e))?;
    let (width, height) = {
        let info = reader.info();
        (info.width, info.height)
    };
    check_size(what, width, height)?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).map_err(|e| invalid(what, e))?;
    let channels = match frame.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => {
            return Err(invalid(what, "palette not expanded"));
        }
    };
    let row = width as usize * channels;
    let packed: Vec<u8> = if frame.line_size == row {
        buf.truncate(row * height as usize);
        buf
    } else {
        buf.chunks(frame.line_size)
            .take(height as usize)
            .flat_map(|line| &line[..row.min(line.len())])
            .copied()
            .collect()
    };
    Ok(widen_channels(&packed, channels, width, height))
}

fn decode_jpeg(bytes: &[u8], what: &str) -> Result<Rgba8Image> {
    let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(bytes));
    decoder.set_max_decoding_buffer_size((MAX_PIXELS * 4) as usize);
    decoder.read_info().map_err(|e| invalid(what, e))?;
    let info = decoder
        .info()
        .ok_or_else(|| invalid(what, "no frame header"))?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    check_size(what, width, height)?;
    let data = decoder.decode().map_err(|e| invalid(what, e))?;
    let image = match info.pixel_format {
        jpeg_decoder::PixelFormat::L8 => widen_channels(&data, 1, width, height),
        jpeg_decoder::PixelFormat::L16 => {
            // Big-endian 16-bit grey: the high byte.
            let grey: Vec<u8> = data.chunks_exact(2).map(|p| p[0]).collect();
            widen_channels(&grey, 1, width, height)
        }
        jpeg_decoder::PixelFormat::RGB24 => widen_channels(&data, 3, width, height),
        jpeg_decoder::PixelFormat::CMYK32 => {
            // Adobe's inverted CMYK as the decoder gives it: RGB = C, M, Y scaled by K.
            let rgb: Vec<u8> = data
                .chunks_exact(4)
                .flat_map(|p| {
                    let k = u32::from(p[3]);
                    [0, 1, 2].map(|i| ((u32::from(p[i]) * k + 127) / 255) as u8)
                })
                .collect();
            widen_channels(&rgb, 3, width, height)
        }
    };
    if image.pixels.len() != width as usize * height as usize * 4 {
        return Err(invalid(what, "fewer pixels than the header says"));
    }
    Ok(image)
}

fn decode_webp(bytes: &[u8], what: &str) -> Result<Rgba8Image> {
    let mut decoder =
        image_webp::WebPDecoder::new(Cursor::new(bytes)).map_err(|e| invalid(what, e))?;
    let (width, height) = decoder.dimensions();
    check_size(what, width, height)?;
    decoder.set_memory_limit((MAX_PIXELS * 8) as usize);
    let channels = if decoder.has_alpha() { 4 } else { 3 };
    let size = decoder
        .output_buffer_size()
        .ok_or_else(|| invalid(what, "size overflows"))?;
    if size != width as usize * height as usize * channels {
        return Err(invalid(what, "unexpected output size"));
    }
    let mut buf = vec![0; size];
    decoder.read_image(&mut buf).map_err(|e| invalid(what, e))?;
    Ok(widen_channels(&buf, channels, width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_of(width: u32, height: u32, color: png::ColorType, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, width, height);
        e.set_color(color);
        e.set_depth(png::BitDepth::Eight);
        let mut w = e.write_header().unwrap();
        w.write_image_data(data).unwrap();
        w.finish().unwrap();
        out
    }

    /// CRC-32 (IEEE), to keep a patched PNG chunk valid.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn png_colour_types_widen_to_rgba() {
        let grey = png_of(2, 1, png::ColorType::Grayscale, &[10, 200]);
        assert_eq!(
            decode(&grey, "g").unwrap().pixels,
            [10, 10, 10, 255, 200, 200, 200, 255]
        );
        let ga = png_of(1, 1, png::ColorType::GrayscaleAlpha, &[7, 9]);
        assert_eq!(decode(&ga, "ga").unwrap().pixels, [7, 7, 7, 9]);
        let rgb = png_of(1, 2, png::ColorType::Rgb, &[1, 2, 3, 4, 5, 6]);
        let img = decode(&rgb, "rgb").unwrap();
        assert_eq!((img.width, img.height), (1, 2));
        assert_eq!(img.pixels, [1, 2, 3, 255, 4, 5, 6, 255]);
        let rgba = png_of(1, 1, png::ColorType::Rgba, &[1, 2, 3, 4]);
        assert_eq!(decode(&rgba, "rgba").unwrap().pixels, [1, 2, 3, 4]);
    }

    #[test]
    fn refusals_are_typed() {
        let e = decode(b"GIF89a......", "x").unwrap_err();
        assert_eq!(e.code(), "image.unsupported");
        let e = decode(b"\x89PNG\r\n\x1a\nbroken", "x").unwrap_err();
        assert_eq!(e.code(), "image.invalid");
        let e = decode(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0], "x").unwrap_err();
        assert_eq!(e.code(), "image.invalid");
        let e = decode(b"RIFF\x04\0\0\0WEBPjunk", "x").unwrap_err();
        assert_eq!(e.code(), "image.invalid");
        // A valid header claiming more than the limit: refused before the pixels.
        let mut big = png_of(1, 1, png::ColorType::Rgba, &[0; 4]);
        big[16..20].copy_from_slice(&(MAX_SIDE + 1).to_be_bytes());
        let crc = crc32(&big[12..29]);
        big[29..33].copy_from_slice(&crc.to_be_bytes());
        let e = decode(&big, "big").unwrap_err();
        assert_eq!(e.code(), "image.too_large", "{e:?}");
    }
}
