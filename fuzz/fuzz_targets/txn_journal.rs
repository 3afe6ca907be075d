//! A transaction journal (`.mshconv.journal`) as the next mshconv command
//! reads it from a game folder: parsing never panics; a journal it would act
//! on names only files of its own folders, as a transaction writes them
//! (temporary and kept files `.NAME.ID.tmp` / `.NAME.ID.old` beside each
//! target), and lists the folder it was found in.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_app::txn::{parse_journal, FoundJournal};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let folder = Path::new("/game");
    match parse_journal(data, folder) {
        Ok(FoundJournal::Journal(journal)) => {
            assert!(journal.names_only_its_own(folder));
            assert!(journal.folder_paths().iter().any(|f| f == folder));
        }
        Ok(FoundJournal::Incomplete) => {}
        Err(e) => assert_eq!(e.code(), "txn.journal_unknown"),
    }
});
