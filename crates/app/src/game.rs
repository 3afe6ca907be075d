//! The game folder: `Material.lib`, `Textures.lib` and `LightMap.lib` found
//! in it, read once per process, and the resolver that turns a model's
//! `material_index` into a look (`../shared/spec/MATERIALS.md`, "Resolving a
//! material name"; docs/MATERIALS.md, "The resolver and the export").
//!
//! - [`GameDir::open`] gives the folder's shared state (`Arc`), from a
//!   process-wide cache keyed by the folder's canonical path: the threads of a
//!   batch and the requests of a service share it, so `Material.lib` is parsed
//!   once and `Textures.lib` read once, until either is replaced (a library
//!   import, a look written back): then the next `open` reads them anew.
//! - [`GameDir::given`] builds one from library bytes in memory (a service's
//!   upload), not cached: each library given replaces the folder's, each one
//!   not given is the folder's (its decoded textures shared), or missing.
//! - Each library is read on first use; each texture is decoded (mip 0 to
//!   RGBA8) on first use and kept by name, with its PNG once encoded.
//! - [`GameDir::look`] resolves a model: its WEAR sibling ([`ModelLocation`]),
//!   each row by the runtime's rule ([`DEFAULT_MATERIAL`], then the first
//!   entry), each material's texture. Nothing here fails: a missing or damaged
//!   library, WEAR or entry is a note and the export goes on without what it
//!   lacks ([`GameLook`]).
//! - [`GameResources`] brings it to [`crate::convert()`] through
//!   [`Resources::look`].

use crate::codes::{ErrorCode, NoteCode};
use crate::file_stamp::FileStamp;
use crate::resources::{Inputs, Resources};
use mshconv_convert::look::{Look, Material, Resolution, ResolvedMaterial, Texture, WearSource};
use mshconv_convert::view::ExportView;
use mshconv_convert::Note;
use mshconv_material::mat0::MAT0_TYPE_ID;
use mshconv_material::{cp1251, Mat0, Texm, Wear};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The material library's file name (compared case-insensitively).
pub const MATERIAL_LIB: &str = "Material.lib";
/// The texture library's file name (compared case-insensitively).
pub const TEXTURES_LIB: &str = "Textures.lib";
/// The lightmap library's file name (compared case-insensitively; found, not
/// yet used by the exports).
pub const LIGHTMAP_LIB: &str = "LightMap.lib";
/// The runtime's first fallback: the MAT0 entry of this name.
pub const DEFAULT_MATERIAL: &str = "DEFAULT";
/// A model's WEAR sibling: the model's name with this extension.
pub const WEAR_EXTENSION: &str = "wea";
/// **Uncertain.** How names compare: the original runs on Windows, whose
/// file-name and (per the public notes) resource-name comparisons ignore
/// case; only ASCII letters are folded here (every name seen is ASCII).
pub fn same_name(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}
/// **Uncertain.** Which MAT0 entries take part in the lookup: only entries
/// whose `type_id` is `MAT0` and whose payload parses; a damaged entry is
/// left out (a note), so its name falls back as a missing one would.
pub const ONLY_PARSED_MAT0: bool = true;

/// Where the model being converted lies, to find its WEAR sibling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelLocation {
    /// A loose file: its sibling is the file `<stem>.wea` in the same folder.
    File(PathBuf),
    /// An archive entry: its sibling is the entry `<stem>.wea` in the same archive.
    Entry {
        /// The archive file.
        archive: PathBuf,
        /// The model's entry name.
        entry: String,
    },
    /// A model without a place to look beside (an upload): the WEAR that
    /// came with it, if any.
    Given {
        /// The model's name, for the notes.
        model: String,
        /// The WEAR's name and bytes.
        wear: Option<(String, Vec<u8>)>,
    },
}

/// A model's look and what the resolver noticed.
#[derive(Debug, Clone, Default)]
pub struct GameLook {
    /// The resolved materials (by `material_index`) and the WEAR.
    pub look: Look,
    /// Notes on one `material_index` (a fallback, a missing texture): given
    /// only for the indices the model uses.
    pub index_notes: BTreeMap<u16, Vec<Note>>,
    /// Notes on the model or the libraries (no WEAR, a damaged library).
    pub notes: Vec<Note>,
    /// The WEAR's row count, when there is a WEAR (an index at or past it is
    /// a missing row).
    pub wear_rows: Option<usize>,
}

/// A texture decoded on first use, or why there is none.
type TextureCell = OnceLock<Result<Arc<Texture>, String>>;

/// The `.wea` entries of an archive: upper-case name -> payload.
type WearEntries = HashMap<String, Vec<u8>>;

/// `Material.lib`, parsed: its MAT0 entries in directory order.
#[derive(Debug, Default)]
struct MaterialLib {
    entries: Vec<Arc<Material>>,
    notes: Vec<Note>,
}

/// `Textures.lib`: its bytes and its entries' names and payload ranges.
#[derive(Debug, Default)]
struct TexturesLib {
    entries: Vec<(String, std::ops::Range<usize>)>,
    bytes: LibraryBytes,
    notes: Vec<Note>,
}

/// A library's bytes, shared as the caller holds them (a `Vec<u8>`, or the
/// service's upload buffer) rather than copied: a given `Textures.lib` is
/// kept for as long as its textures may be decoded.
#[derive(Clone)]
pub struct LibraryBytes(Arc<dyn AsRef<[u8]> + Send + Sync>);

impl LibraryBytes {
    /// Any bytes that can be shared between threads.
    pub fn new(bytes: impl AsRef<[u8]> + Send + Sync + 'static) -> LibraryBytes {
        LibraryBytes(Arc::new(bytes))
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        (*self.0).as_ref()
    }
}

impl From<Vec<u8>> for LibraryBytes {
    fn from(bytes: Vec<u8>) -> LibraryBytes {
        LibraryBytes::new(bytes)
    }
}

impl Default for LibraryBytes {
    fn default() -> LibraryBytes {
        LibraryBytes::new(Vec::new())
    }
}

impl std::fmt::Debug for LibraryBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LibraryBytes({} bytes)", self.as_slice().len())
    }
}

impl MaterialLib {
    /// No library: `game.no_material_lib`.
    fn missing(message: String) -> Self {
        MaterialLib {
            entries: Vec::new(),
            notes: vec![note(NoteCode::GameNoMaterialLib.code(), message)],
        }
    }

    /// A library that cannot be read: `game.bad_material_lib`.
    fn unreadable(message: String) -> Self {
        MaterialLib {
            entries: Vec::new(),
            notes: vec![note(NoteCode::GameBadMaterialLib.code(), message)],
        }
    }

    /// The MAT0 entries of the library `bytes` (`label` names it in the notes).
    fn parse(label: &str, bytes: &[u8]) -> Self {
        let archive = match nres::Archive::parse(bytes) {
            Ok(a) => a,
            Err(e) => {
                return MaterialLib::unreadable(format!(
                    "{label} is not a readable NRes archive ({}): materials are not resolved",
                    e.message()
                ))
            }
        };
        let mut lib = MaterialLib::default();
        for e in archive.entries().filter(|e| e.type_id() == MAT0_TYPE_ID) {
            match Mat0::parse(e.data(), e.attr2()) {
                Ok(mat0) => lib.entries.push(Arc::new(Material {
                    name: e.name(),
                    attr1: e.attr1(),
                    mat0,
                })),
                Err(err) => lib.notes.push(note(
                    NoteCode::GameBadMat0.code(),
                    format!(
                        "{MATERIAL_LIB} entry {:?} is damaged ({}): left out of the lookup",
                        e.name(),
                        err
                    ),
                )),
            }
        }
        lib
    }
}

impl TexturesLib {
    /// No library: `game.no_textures_lib`.
    fn missing(message: String) -> Self {
        TexturesLib {
            notes: vec![note(NoteCode::GameNoTexturesLib.code(), message)],
            ..TexturesLib::default()
        }
    }

    /// A library that cannot be read: `game.bad_textures_lib`.
    fn unreadable(message: String) -> Self {
        TexturesLib {
            notes: vec![note(NoteCode::GameBadTexturesLib.code(), message)],
            ..TexturesLib::default()
        }
    }

    /// The entries of the library `bytes`, kept with them (`label` names it
    /// in the notes); each Texm is parsed on first use.
    fn parse(label: &str, bytes: LibraryBytes) -> Self {
        let entries = match nres::Archive::parse(bytes.as_slice()) {
            Ok(archive) => {
                let base = bytes.as_slice().as_ptr() as usize;
                archive
                    .entries()
                    .map(|e| {
                        let start = e.data().as_ptr() as usize - base;
                        (e.name(), start..start + e.data().len())
                    })
                    .collect()
            }
            Err(e) => {
                return TexturesLib::unreadable(format!(
                "{label} is not a readable NRes archive ({}): materials are exported untextured",
                e.message()
            ))
            }
        };
        TexturesLib {
            entries,
            bytes,
            notes: Vec::new(),
        }
    }
}

/// Libraries given as bytes ([`GameDir::given`]).
#[derive(Debug, Clone, Default)]
pub struct GivenLibraries {
    /// A `Material.lib`.
    pub material: Option<LibraryBytes>,
    /// A `Textures.lib` (kept, not copied, while its textures are decoded).
    pub textures: Option<LibraryBytes>,
}

/// A game folder's shared state. See the module documentation.
#[derive(Debug)]
pub struct GameDir {
    dir: PathBuf,
    /// For a [`GameDir::given`] one: the folder whose libraries stand in for
    /// those not given (an empty `material`/`textures` cell defers to it).
    base: Option<Arc<GameDir>>,
    material: OnceLock<MaterialLib>,
    textures: OnceLock<TexturesLib>,
    /// Decoded textures by upper-case name (`Err`: why there is none).
    /// Each cell is filled once, outside the map's lock: two threads asking
    /// for one texture decode it once, two textures decode at once.
    texture_cache: Mutex<HashMap<String, Arc<TextureCell>>>,
    /// The `.wea` entries of each archive read so far (upper-case name ->
    /// bytes), with the archive's stamp when read: a replaced archive is read anew.
    archive_wears: Mutex<HashMap<PathBuf, (FileStamp, Arc<WearEntries>)>>,
}

fn note(code: &'static str, message: impl Into<String>) -> Note {
    Note {
        code,
        message: message.into(),
    }
}

/// The file in `dir` named `name` (case-insensitively), if any.
pub fn find_in_folder(dir: &Path, name: &str) -> Option<PathBuf> {
    let exact = dir.join(name);
    if exact.is_file() {
        return Some(exact);
    }
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .find(|e| same_name(&e.file_name().to_string_lossy(), name) && e.path().is_file())
        .map(|e| e.path())
}

/// The WEAR sibling's name of a model named `name`.
pub fn wear_name(name: &str) -> String {
    let stem = match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    };
    format!("{stem}.{WEAR_EXTENSION}")
}

/// Whether an entry or file `name` is a WEAR (ends in `.wea`, any case).
fn is_wear_name(name: &str) -> bool {
    let suffix = WEAR_EXTENSION.len() + 1;
    name.len() > suffix
        && name.is_char_boundary(name.len() - suffix)
        && same_name(&name[name.len() - suffix..], &format!(".{WEAR_EXTENSION}"))
}

/// The WEAR sibling of the entry `entry` in `archive` (the first entry named
/// [`wear_name`]`(entry)`, case-insensitively): that name and the entry's
/// bytes, as [`GameDir::look`] names an archive's WEAR.
pub fn wear_sibling(archive: &nres::Archive, entry: &str) -> Option<(String, Vec<u8>)> {
    let name = wear_name(entry);
    let data = archive
        .entries()
        .find(|e| same_name(&e.name(), &name))?
        .data()
        .to_vec();
    Some((name, data))
}

impl GameDir {
    /// [`GameDir::open`] once an interrupted run that was writing the
    /// folder's libraries is finished ([`crate::txn::recover_pending`], told
    /// through `on` as it happens), so that its libraries are never read half
    /// written.
    pub fn open_recovered(
        dir: &Path,
        on: &mut dyn FnMut(crate::txn::Event<'_>),
    ) -> Result<Arc<GameDir>, crate::Error> {
        if dir.is_dir() {
            crate::txn::recover_pending(dir, on)?;
        }
        GameDir::open(dir)
    }

    /// The shared state of the game folder `dir`: from the process-wide cache
    /// when the folder was opened before. An error only when `dir` is not a
    /// folder (`game_dir.not_found`); its libraries are read on first use.
    pub fn open(dir: &Path) -> Result<Arc<GameDir>, crate::Error> {
        type Cached = (Vec<FileStamp>, Arc<GameDir>);
        static CACHE: OnceLock<Mutex<HashMap<PathBuf, Cached>>> = OnceLock::new();
        let key = std::fs::canonicalize(dir)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| {
                crate::Error::usage(
                    ErrorCode::GameDirNotFound,
                    format!("the game folder {} is not a folder", dir.display()),
                )
            })?;
        // The libraries as they are now: a cached state read from libraries
        // replaced since is dropped (stamped before any read, so a library
        // replaced meanwhile is read again next time, never missed).
        let stamps: Vec<FileStamp> = [MATERIAL_LIB, TEXTURES_LIB]
            .iter()
            .map(|name| FileStamp::of(find_in_folder(&key, name).as_deref()))
            .collect();
        let mut cache = CACHE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some((cached, game)) = cache.get(&key) {
            if *cached == stamps {
                return Ok(game.clone());
            }
        }
        let game = Arc::new(GameDir {
            dir: key.clone(),
            base: None,
            material: OnceLock::new(),
            textures: OnceLock::new(),
            texture_cache: Mutex::new(HashMap::new()),
            archive_wears: Mutex::new(HashMap::new()),
        });
        cache.insert(key, (stamps, game.clone()));
        Ok(game)
    }

    /// Libraries given in memory (a service's upload): each one given
    /// replaces `base`'s (the game folder's), each one not given is `base`'s
    /// (sharing its decoded textures), or missing without a `base`. Not cached
    /// process-wide: it lives as long as its conversions. A damaged given
    /// library is a note, as a damaged file is.
    pub fn given(libraries: GivenLibraries, base: Option<Arc<GameDir>>) -> Arc<GameDir> {
        let given =
            |bytes: Option<LibraryBytes>, name: &str| -> Option<Result<LibraryBytes, String>> {
                match (bytes, &base) {
                    (Some(b), _) => Some(Ok(b)),
                    (None, Some(_)) => None,
                    (None, None) => Some(Err(format!("no {name} given"))),
                }
            };
        let material = match given(libraries.material, MATERIAL_LIB) {
            None => OnceLock::new(),
            Some(Ok(b)) => OnceLock::from(MaterialLib::parse(
                &format!("the given {MATERIAL_LIB}"),
                b.as_slice(),
            )),
            Some(Err(why)) => OnceLock::from(MaterialLib::missing(format!(
                "{why}: materials are not resolved"
            ))),
        };
        let textures = match given(libraries.textures, TEXTURES_LIB) {
            None => OnceLock::new(),
            Some(Ok(b)) => {
                OnceLock::from(TexturesLib::parse(&format!("the given {TEXTURES_LIB}"), b))
            }
            Some(Err(why)) => OnceLock::from(TexturesLib::missing(format!(
                "{why}: materials are exported untextured"
            ))),
        };
        Arc::new(GameDir {
            dir: base.as_ref().map(|b| b.dir.clone()).unwrap_or_default(),
            base,
            material,
            textures,
            texture_cache: Mutex::new(HashMap::new()),
            archive_wears: Mutex::new(HashMap::new()),
        })
    }

    /// The folder (empty for [`GameDir::given`] libraries without one).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of `LightMap.lib` in the folder, if there is one.
    pub fn lightmap_lib(&self) -> Option<PathBuf> {
        if self.dir.as_os_str().is_empty() {
            return None;
        }
        find_in_folder(&self.dir, LIGHTMAP_LIB)
    }

    /// `Material.lib`: given, else the base folder's, else read from the folder.
    fn material_lib(&self) -> &MaterialLib {
        if let (None, Some(base)) = (self.material.get(), &self.base) {
            return base.material_lib();
        }
        self.material.get_or_init(|| {
            let Some(path) = find_in_folder(&self.dir, MATERIAL_LIB) else {
                return MaterialLib::missing(format!(
                    "no {MATERIAL_LIB} in {}: materials are not resolved",
                    self.dir.display()
                ));
            };
            match std::fs::read(&path) {
                Ok(bytes) => MaterialLib::parse(&path.display().to_string(), &bytes),
                Err(e) => MaterialLib::unreadable(format!("{}: {e}", path.display())),
            }
        })
    }

    /// `Textures.lib`: given, else the base folder's, else read from the folder.
    fn textures_lib(&self) -> &TexturesLib {
        if let (None, Some(base)) = (self.textures.get(), &self.base) {
            return base.textures_lib();
        }
        self.textures.get_or_init(|| {
            let Some(path) = find_in_folder(&self.dir, TEXTURES_LIB) else {
                return TexturesLib::missing(format!(
                    "no {TEXTURES_LIB} in {}: materials are exported untextured",
                    self.dir.display()
                ));
            };
            match std::fs::read(&path) {
                Ok(bytes) => TexturesLib::parse(&path.display().to_string(), bytes.into()),
                Err(e) => TexturesLib::unreadable(format!("{}: {e}", path.display())),
            }
        })
    }

    /// The texture `name` of `Textures.lib` (the first entry of that name,
    /// case-insensitively), decoded once and kept; `Err` says why there is none.
    pub fn texture(&self, name: &str) -> Result<Arc<Texture>, String> {
        if let (None, Some(base)) = (self.textures.get(), &self.base) {
            return base.texture(name);
        }
        let cell = self
            .texture_cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(name.to_ascii_uppercase())
            .or_default()
            .clone();
        cell.get_or_init(|| self.decode_texture(name)).clone()
    }

    /// The texture `name` read from `Textures.lib` and decoded.
    fn decode_texture(&self, name: &str) -> Result<Arc<Texture>, String> {
        let lib = self.textures_lib();
        let found = match lib.entries.iter().find(|(n, _)| same_name(n, name)) {
            None if lib.bytes.as_slice().is_empty() => {
                Err(format!("{TEXTURES_LIB} is not available"))
            }
            None => Err(format!("{TEXTURES_LIB} has no texture {name:?}")),
            Some((stored, range)) => lib
                .bytes
                .as_slice()
                .get(range.clone())
                .ok_or_else(|| "out of range".to_string())
                .and_then(|b| Texm::parse(b).map_err(|e| e.to_string()))
                .and_then(|texm| {
                    Texture::new(stored.clone(), texm).ok_or_else(|| "does not decode".to_string())
                })
                .map(Arc::new)
                .map_err(|e| format!("{TEXTURES_LIB} entry {stored:?} is damaged ({e})")),
        };
        found
    }

    /// The bytes of the WEAR sibling of the model at `at`, with its name;
    /// `Err` is the note saying why there is none.
    fn wear_of(&self, at: &ModelLocation) -> Result<(String, Vec<u8>), Note> {
        match at {
            ModelLocation::File(path) => {
                let name = wear_name(&path.file_name().unwrap_or_default().to_string_lossy());
                let dir = path
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let found = find_in_folder(dir, &name).ok_or_else(|| {
                    note(
                        NoteCode::GameNoWear.code(),
                        format!("no {name} beside the model: materials are not resolved"),
                    )
                })?;
                let bytes = std::fs::read(&found).map_err(|e| {
                    note(
                        NoteCode::GameNoWear.code(),
                        format!("{}: {e}", found.display()),
                    )
                })?;
                let stored = found
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                Ok((stored, bytes))
            }
            ModelLocation::Entry { archive, entry } => {
                let name = wear_name(entry);
                let wears = self.archive_wears(archive)?;
                wears
                    .get(&name.to_ascii_uppercase())
                    .map(|b| (name.clone(), b.clone()))
                    .ok_or_else(|| {
                        note(
                            NoteCode::GameNoWear.code(),
                            format!(
                                "no entry {name} beside {entry} in {}: materials are not resolved",
                                archive.display()
                            ),
                        )
                    })
            }
            ModelLocation::Given { model, wear } => wear.clone().ok_or_else(|| {
                note(
                    NoteCode::GameNoWear.code(),
                    format!("no WEAR came with {model}: materials are not resolved"),
                )
            }),
        }
    }

    /// The `.wea` entries of `archive`, read once until it is replaced.
    fn archive_wears(&self, archive: &Path) -> Result<Arc<WearEntries>, Note> {
        let stamp = FileStamp::of(Some(archive));
        if let Some((cached, w)) = self
            .archive_wears
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(archive)
        {
            if *cached == stamp {
                return Ok(w.clone());
            }
        }
        let bytes = std::fs::read(archive).map_err(|e| {
            note(
                NoteCode::GameNoWear.code(),
                format!("{}: {e}", archive.display()),
            )
        })?;
        let parsed = nres::Archive::parse(&bytes).map_err(|e| {
            note(
                NoteCode::GameNoWear.code(),
                format!(
                    "{} is not a readable archive: {}",
                    archive.display(),
                    e.message()
                ),
            )
        })?;
        let mut map = HashMap::new();
        for e in parsed.entries() {
            let name = e.name();
            if is_wear_name(&name) {
                map.entry(name.to_ascii_uppercase())
                    .or_insert_with(|| e.data().to_vec());
            }
        }
        let map = Arc::new(map);
        self.archive_wears
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(archive.to_path_buf(), (stamp, map.clone()));
        Ok(map)
    }

    /// Resolves the model at `at`: every row of its WEAR by the runtime's
    /// rule, and each material's texture. Never fails (see [`GameLook`]).
    pub fn look(&self, at: &ModelLocation) -> GameLook {
        let mut out = GameLook::default();
        let (wear_file, bytes) = match self.wear_of(at) {
            Ok(w) => w,
            Err(n) => {
                out.notes.push(n);
                return out;
            }
        };
        let wear = match Wear::parse(&bytes) {
            Ok(w) => w,
            Err(e) => {
                out.notes.push(note(
                    NoteCode::GameBadWear.code(),
                    format!("{wear_file} is damaged ({e}): materials are not resolved"),
                ));
                return out;
            }
        };
        out.wear_rows = Some(wear.materials.len());
        out.look.wear = Some(WearSource {
            name: wear_file.clone(),
            text: cp1251::decode(&bytes),
        });
        let lib = self.material_lib();
        out.notes.extend(lib.notes.iter().cloned());
        let Some(first) = lib.entries.first() else {
            if lib.notes.is_empty() {
                out.notes.push(note(
                    NoteCode::GameNoMaterialLib.code(),
                    format!("{MATERIAL_LIB} has no MAT0 entry: materials are not resolved"),
                ));
            }
            return out;
        };
        let mut texture_notes_given = false;
        for (i, row) in wear.materials.iter().enumerate() {
            let Ok(index) = u16::try_from(i) else { break };
            let mut notes = Vec::new();
            let find = |name: &str| lib.entries.iter().find(|m| same_name(&m.name, name));
            let (material, resolution) = match find(&row.name) {
                Some(m) => (m, Resolution::Exact),
                None => match find(DEFAULT_MATERIAL) {
                    Some(m) => {
                        notes.push(note(NoteCode::GameMaterialDefault.code(), format!(
                            "material {index} ({wear_file} row {:?}): no such entry in {MATERIAL_LIB}; the runtime's fallback {DEFAULT_MATERIAL:?} is used",
                            row.name
                        )));
                        (m, Resolution::Default)
                    }
                    None => {
                        notes.push(note(NoteCode::GameMaterialFirstEntry.code(), format!(
                            "material {index} ({wear_file} row {:?}): neither it nor {DEFAULT_MATERIAL:?} is in {MATERIAL_LIB}; the runtime's fallback, its first entry {:?}, is used",
                            row.name, first.name
                        )));
                        (first, Resolution::FirstEntry)
                    }
                },
            };
            let texture = material.mat0.texture().and_then(|raw| {
                let name = cp1251::decode(raw);
                match self.texture(&name) {
                    Ok(t) => Some(t),
                    Err(why) => {
                        notes.push(note(NoteCode::GameNoTexture.code(), format!(
                            "material {index} ({:?}) names texture {name:?}: {why}; exported untextured",
                            material.name
                        )));
                        None
                    }
                }
            });
            if !texture_notes_given && material.mat0.texture().is_some() {
                texture_notes_given = true;
                out.notes.extend(self.textures_lib().notes.iter().cloned());
            }
            out.look.materials.insert(
                index,
                ResolvedMaterial {
                    legacy_id: row.legacy_id.clone(),
                    row_name: row.name.clone(),
                    resolution,
                    material: material.clone(),
                    texture,
                },
            );
            if !notes.is_empty() {
                out.index_notes.insert(index, notes);
            }
        }
        out
    }
}

/// Resources for a conversion with a game folder: what `inner` gives (side
/// files, an `.mtl`), and the look of the model at `at` from `game`.
pub struct GameResources<'a> {
    /// The resources without the game folder.
    pub inner: &'a dyn Resources,
    /// The game folder.
    pub game: Arc<GameDir>,
    /// Where the model lies.
    pub at: ModelLocation,
}

impl Inputs for GameResources<'_> {
    fn side_file(&self, name: &str) -> Option<Vec<u8>> {
        self.inner.side_file(name)
    }
    fn material_library(&self, named: Option<&str>) -> Option<Vec<u8>> {
        self.inner.material_library(named)
    }
}

impl Resources for GameResources<'_> {
    fn look(&self) -> Option<GameLook> {
        Some(self.game.look(&self.at))
    }
}

/// Adds to `report` the resolver's notes that concern the exported model
/// `view`: the model-wide ones, those of each `material_index` its batches
/// use (the view's [`ExportView::materials_drawn`]: the model is not opened
/// again), and one `game.missing_wear_row` per used index past the WEAR's rows.
pub fn add_notes(view: &ExportView<'_>, game: &GameLook, report: &mut mshconv_convert::Report) {
    for n in &game.notes {
        report.note(n.code, n.message.clone());
    }
    let Some(rows) = game.wear_rows else { return };
    for &index in &view.materials_drawn {
        if usize::from(index) >= rows {
            report.note(
                NoteCode::GameMissingWearRow.code(),
                format!("material {index}: the WEAR has {rows} rows; exported as without a game folder (mat{index})"),
            );
        }
        for n in game.index_notes.get(&index).into_iter().flatten() {
            report.note(n.code, n.message.clone());
        }
    }
}
