//! A minimal zip writer: stored (uncompressed) entries with a fixed timestamp,
//! so the same files always give the same bytes (responses can be cached and
//! diffed). No zip64: the whole archive stays under 4 GiB, which the body
//! limit makes certain in practice and [`Zip::finish`] checks.

/// A zip being built in memory.
#[derive(Debug, Default)]
pub struct Zip {
    out: Vec<u8>,
    central: Vec<u8>,
    count: u16,
    overflow: bool,
}

/// DOS date of 1980-01-01 (the earliest a zip can say), time 00:00.
const DOS_DATE: u16 = (1 << 5) | 1;
const DOS_TIME: u16 = 0;

/// The archive would need zip64 (over 4 GiB or 65535 entries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

impl Zip {
    /// An empty zip.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file. `name` is used as given (callers pass plain, sanitised
    /// names: no folders, no `..`).
    pub fn add(&mut self, name: &str, data: &[u8]) {
        let (Ok(offset), Ok(size), Ok(name_len), Some(count)) = (
            u32::try_from(self.out.len()),
            u32::try_from(data.len()),
            u16::try_from(name.len()),
            self.count.checked_add(1),
        ) else {
            self.overflow = true;
            return;
        };
        self.count = count;
        let crc = crc32fast::hash(data);
        // Bit 11: the name is UTF-8.
        let flags: u16 = if name.is_ascii() { 0 } else { 1 << 11 };
        let local = &mut self.out;
        local.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        local.extend_from_slice(&10u16.to_le_bytes()); // version needed: 1.0 (stored)
        local.extend_from_slice(&flags.to_le_bytes());
        local.extend_from_slice(&0u16.to_le_bytes()); // method: stored
        local.extend_from_slice(&DOS_TIME.to_le_bytes());
        local.extend_from_slice(&DOS_DATE.to_le_bytes());
        local.extend_from_slice(&crc.to_le_bytes());
        local.extend_from_slice(&size.to_le_bytes()); // compressed size
        local.extend_from_slice(&size.to_le_bytes()); // uncompressed size
        local.extend_from_slice(&name_len.to_le_bytes());
        local.extend_from_slice(&0u16.to_le_bytes()); // extra length
        local.extend_from_slice(name.as_bytes());
        local.extend_from_slice(data);

        let c = &mut self.central;
        c.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        c.extend_from_slice(&20u16.to_le_bytes()); // version made by: 2.0, MS-DOS
        c.extend_from_slice(&10u16.to_le_bytes()); // version needed
        c.extend_from_slice(&flags.to_le_bytes());
        c.extend_from_slice(&0u16.to_le_bytes()); // method
        c.extend_from_slice(&DOS_TIME.to_le_bytes());
        c.extend_from_slice(&DOS_DATE.to_le_bytes());
        c.extend_from_slice(&crc.to_le_bytes());
        c.extend_from_slice(&size.to_le_bytes());
        c.extend_from_slice(&size.to_le_bytes());
        c.extend_from_slice(&name_len.to_le_bytes());
        c.extend_from_slice(&0u16.to_le_bytes()); // extra length
        c.extend_from_slice(&0u16.to_le_bytes()); // comment length
        c.extend_from_slice(&0u16.to_le_bytes()); // disk number
        c.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        c.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        c.extend_from_slice(&offset.to_le_bytes());
        c.extend_from_slice(name.as_bytes());
    }

    /// The finished archive.
    pub fn finish(mut self) -> Result<Vec<u8>, TooLarge> {
        let (Ok(cd_offset), Ok(cd_size)) = (
            u32::try_from(self.out.len()),
            u32::try_from(self.central.len()),
        ) else {
            return Err(TooLarge);
        };
        if self.overflow || cd_offset.checked_add(cd_size).is_none() {
            return Err(TooLarge);
        }
        self.out.append(&mut self.central);
        let end = &mut self.out;
        end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        end.extend_from_slice(&0u16.to_le_bytes()); // this disk
        end.extend_from_slice(&0u16.to_le_bytes()); // disk with the directory
        end.extend_from_slice(&self.count.to_le_bytes());
        end.extend_from_slice(&self.count.to_le_bytes());
        end.extend_from_slice(&cd_size.to_le_bytes());
        end.extend_from_slice(&cd_offset.to_le_bytes());
        end.extend_from_slice(&0u16.to_le_bytes()); // comment length
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_zip_reader_reads_back_every_file() {
        let mut zip = Zip::new();
        zip.add("a.obj", b"o a\nv 0 0 0\n");
        zip.add("empty.txt", b"");
        zip.add("r\u{e9}sum\u{e9}.bin", &[0, 1, 2, 255]);
        let bytes = zip.finish().unwrap();
        let mut archive = ::zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
        assert_eq!(archive.len(), 3);
        let mut read = |i: usize| {
            let mut f = archive.by_index(i).unwrap();
            let mut data = Vec::new();
            f.read_to_end(&mut data).unwrap();
            (f.name().to_string(), data)
        };
        assert_eq!(read(0), ("a.obj".to_string(), b"o a\nv 0 0 0\n".to_vec()));
        assert_eq!(read(1), ("empty.txt".to_string(), Vec::new()));
        assert_eq!(
            read(2),
            ("r\u{e9}sum\u{e9}.bin".to_string(), vec![0, 1, 2, 255])
        );
    }

    #[test]
    fn same_files_same_bytes() {
        let build = || {
            let mut zip = Zip::new();
            zip.add("x", b"1");
            zip.finish().unwrap()
        };
        assert_eq!(build(), build());
        assert_eq!(Zip::new().finish().unwrap().len(), 22);
    }
}
