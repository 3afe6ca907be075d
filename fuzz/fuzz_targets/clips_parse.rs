//! Clip lists (`--clips`, `NAME.clips.json`): both parsers never panic; what
//! parses writes JSON that parses to the same list, and its text form (when
//! its names can be written that way) parses to the same list too; the check
//! against a frame count agrees with the clips' last frames.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_convert::ClipList;

fuzz_target!(|data: &[u8]| {
    let mut lists = Vec::new();
    if let Ok(list) = ClipList::from_json(data) {
        lists.push(list);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(list) = ClipList::parse_spec(text) {
            lists.push(list);
        }
    }
    for list in lists {
        let json = list.to_json();
        assert_eq!(ClipList::from_json(json.as_bytes()).unwrap(), list);
        let plain = list
            .clips()
            .iter()
            .all(|c| !c.name.contains([',', '=', ':']) && c.name.trim() == c.name);
        if plain && !list.is_empty() {
            assert_eq!(ClipList::parse_spec(&list.to_spec()).unwrap(), list);
        }
        let end = list.clips().iter().map(|c| c.last).max();
        for frames in [0, 1, 100, u32::MAX] {
            let fits = end.is_none_or(|e| e < frames);
            assert_eq!(list.check(frames).is_ok(), fits);
        }
    }
});
