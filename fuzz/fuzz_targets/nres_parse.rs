//! NRes container: parsing never panics; a parsed archive writes back byte for byte
//! (when its payloads do not overlap) and canonically to a file that parses again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nres::{Archive, OwnedArchive, WriteMode};

fuzz_target!(|data: &[u8]| {
    if let Ok(archive) = Archive::parse(data) {
        for entry in archive.entries() {
            let _ = (entry.data(), entry.name());
            let found = archive.find_by_name(&entry.name());
            let _ = found;
        }
        let _ = archive.nested_models().count();
        let owned = OwnedArchive::from_archive(&archive);
        if archive.layout().physical_order.is_some() {
            assert_eq!(owned.write(WriteMode::Lossless).unwrap(), data, "lossless rewrite differs");
        }
        let canonical = owned.write(WriteMode::Canonical).unwrap();
        let again = Archive::parse(&canonical).expect("canonical output must parse");
        assert_eq!(again.len(), archive.len());
    }
    if let Ok((archive, _problems)) = Archive::parse_tolerant(data) {
        let _ = archive.layout();
        for entry in archive.entries() {
            let _ = entry.data();
        }
    }
});
