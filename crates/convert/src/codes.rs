//! The conversion library's codes, each defined once: every error and note
//! a conversion gives ([`Code`]). Call sites name a variant (`Code::X.code()`),
//! never the text; the tests check that every code is unique, also against
//! the layers below, and that the docs list it.

/// Every error and note code of the conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// `anim.too_long`: the animation runs … frames at … fps over … animated nodes; an MSH frame map holds at most 65535 frames x nodes: shorten the animation, choo
    AnimTooLong,
    /// `clips.invalid`: a clip list that does not parse or breaks a rule of its own
    ClipsInvalid,
    /// `clips.key_time_duplicate`: two keys of one sampler at the same time (the first is kept, with a note)
    ClipsKeyTimeDuplicate,
    /// `clips.key_time_invalid`: a key time that is NaN or infinite (refused) or negative (noted: the timeline starts at 0)
    ClipsKeyTimeInvalid,
    /// `clips.key_time_order`: a sampler's key times out of order (sorted, with a note)
    ClipsKeyTimeOrder,
    /// `clips.no_track`: a clip that animates nothing (clips for a model without an animated node, refused; a glTF animation without a channel on a node, noted)
    ClipsNoTrack,
    /// `clips.past_timeline`: a clip whose range reaches past the model's timeline
    ClipsPastTimeline,
    /// `export.alpha_mode`: texture …: alpha … gives alphaMode …
    ExportAlphaMode,
    /// `export.animation_baked`: node …: its keys and frame map are not the canonical layout the glTF timeline can show as is; sampled as the engine does at every frame 0..=
    ExportAnimationBaked,
    /// `export.clips_ignored`: the clips are not written: the model's animation tables travel raw (the clips apply to standard models only), or the format holds no animation (OBJ)
    ExportClipsIgnored,
    /// `export.degenerate_quaternion`: node …: some rotation keys are not unit length; written normalised
    ExportDegenerateQuaternion,
    /// `export.glb`: the GLB would be more than a GLB can hold (4 GiB)
    ExportGlb,
    /// `export.json`: the glTF JSON could not be written
    ExportJson,
    /// `export.legacy_nodes`: legacy 24-byte node table: not decoded; every slot is shown under one root node
    ExportLegacyNodes,
    /// `export.non_finite`: … … is not a finite number; glTF cannot hold it (fix the value in the MSH first)
    ExportNonFinite,
    /// `export.ranges_overlap`: the terrain's slots cover … triangles of Res21's … (more than …): the model repeats the same data over and over; it is not exported
    ExportRangesOverlap,
    /// `export.terrain`: terrain model: each node's slots show their Res21 triangles over the Res3 positions…, one primitive per primary material; secondary (blend)
    ExportTerrain,
    /// `export.terrain_skipped`: terrain tables partly out of range: …; the tables are carried unchanged
    ExportTerrainSkipped,
    /// `export.winding_flipped`: triangles wind clockwise seen from their normals' side; written reversed so glTF's counter-clockwise front faces match (restored on import)
    ExportWindingFlipped,
    /// `export.zero_normal`: zero-length vertex normals were replaced
    ExportZeroNormal,
    /// `glb.malformed`: a GLB whose header or chunks are malformed
    GlbMalformed,
    /// `gltf.accessor_out_of_range`: /accessors/…/sparse/indices: … indices run past their buffer view
    GltfAccessorOutOfRange,
    /// `gltf.accessor_too_large`: /accessors/…/count: … elements without data in the file (zeros or sparse) are more than a file of this size may make (at most … accessor ele
    GltfAccessorTooLarge,
    /// `gltf.accessor_type`: /accessors/…/type: … elements, … components were expected
    GltfAccessorType,
    /// `gltf.bad_accessor`: extras name accessor …, which does not exist
    GltfBadAccessor,
    /// `gltf.bad_buffer`: /bufferViews/…/buffer: its buffer is missing
    GltfBadBuffer,
    /// `gltf.bad_data_uri`: a data: URI must be base64 (';base64,')
    GltfBadDataUri,
    /// `gltf.bad_extras`: extras hold invalid base64: …
    GltfBadExtras,
    /// `gltf.bad_index`: meshes[…].primitives[…] names accessor …, which does not exist
    GltfBadIndex,
    /// `gltf.bad_sampler`: animation …: a sampler's input and output counts disagree
    GltfBadSampler,
    /// `gltf.bad_stride`: …: the stride of its buffer view (…) is smaller than its …-byte elements
    GltfBadStride,
    /// `gltf.buffer_short`: /buffers/…/byteLength: declares … bytes but the buffer holds …
    GltfBufferShort,
    /// `gltf.data_reused`: the file reads its data over and over (meshes shared by many nodes, accessors shared by many primitives or channels): more than … accessor e
    GltfDataReused,
    /// `gltf.decoded_too_large`: the Draco data decodes to more than this file may: …
    GltfDecodedTooLarge,
    /// `gltf.draco_invalid`: Draco-compressed data that does not decode
    GltfDracoInvalid,
    /// `gltf.extension_required`: /extensionsRequired/…: the file requires …: the importer does not know it, and a file that requires it cannot be read without it
    GltfExtensionRequired,
    /// `gltf.instances_too_many`: instances that would not fit an MSH model
    GltfInstancesTooMany,
    /// `gltf.instancing_invalid`: a malformed `EXT_mesh_gpu_instancing` object
    GltfInstancingInvalid,
    /// `gltf.invalid`: not a valid glTF document: an extension object is malformed: …
    GltfInvalid,
    /// `gltf.json_too_large`: the glTF JSON (… bytes) describes so many objects that parsing it would take about … bytes, more than … times its size: it is not a model (a
    GltfJsonTooLarge,
    /// `gltf.meshopt_invalid`: meshopt-compressed data that does not decode
    GltfMeshoptInvalid,
    /// `gltf.missing_bin`: buffer 0 refers to the GLB binary chunk, which is missing
    GltfMissingBin,
    /// `gltf.missing_buffer`: buffer file … is not available
    GltfMissingBuffer,
    /// `gltf.missing_uri`: buffer … has no URI (/buffers/…/uri); only buffer 0 can be a GLB's binary chunk
    GltfMissingUri,
    /// `gltf.morph_invalid`: a morph target that does not match its primitive
    GltfMorphInvalid,
    /// `gltf.node_cycle`: node … is reached twice: the node graph is not a tree
    GltfNodeCycle,
    /// `gltf.non_finite`: /materials/…/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform holds NaN or infinity
    GltfNonFinite,
    /// `gltf.skin_invalid`: a skin that does not fit its nodes or meshes
    GltfSkinInvalid,
    /// `gltf.sparse_out_of_range`: /accessors/…/sparse/indices: index … is …, past the accessor's … elements
    GltfSparseOutOfRange,
    /// `gltf.too_many_materials`: more than 65536 materials: MSH material indices are 16-bit; merge materials first
    GltfTooManyMaterials,
    /// `gltf.uri_refused`: buffer URI … is not followed: only data: URIs and plain file names beside the .gltf are read
    GltfUriRefused,
    /// `gltf.view_out_of_range`: …: buffer view … lies outside its buffer
    GltfViewOutOfRange,
    /// `image.invalid`: …: not a decodable image: …
    ImageInvalid,
    /// `image.too_large`: …: … x … pixels is over the limit (… per side): scale it down
    ImageTooLarge,
    /// `image.unsupported`: …: not a PNG, JPEG or WebP image
    ImageUnsupported,
    /// `import.animations_merged`: … groups of animations animate different nodes and play together (Blender writes one animation per object): …
    ImportAnimationsMerged,
    /// `import.batch_split`: … mesh parts were split into … batches in all to fit u16 indices
    ImportBatchSplit,
    /// `import.cameras_ignored`: cameras are not part of a model and were left out
    ImportCamerasIgnored,
    /// `import.channel_ignored`: … animation channel(s) target no node (KHR_animation_pointer): they were left out
    ImportChannelIgnored,
    /// `import.clip_list`: clips: …
    ImportClipList,
    /// `import.clips`: animations laid end to end: …
    ImportClips,
    /// `import.custom_properties_missing`: the file lost the export's extras (Blender without Custom Properties)
    ImportCustomPropertiesMissing,
    /// `import.degenerate_transform`: … mesh parts sit under a zero scale; their geometry collapses to a point
    ImportDegenerateTransform,
    /// `import.extension_ignored`: …: …
    ImportExtensionIgnored,
    /// `import.instances_expanded`: … instances of … nodes (EXT_mesh_gpu_instancing) became nodes of their own, each a child of its node holding the mesh
    ImportInstancesExpanded,
    /// `import.invalid_result`: the glTF could not be turned into a valid model: …
    ImportInvalidResult,
    /// `import.keys_reduced`: … of … samples in all were reduced to … keys (linear interpolation and short-arc slerp within … units and … per quaternion component at ever
    ImportKeysReduced,
    /// `import.material_assigned`: … materials have no MSH index; each gets the lowest free index: "name" gets k, … and N more
    ImportMaterialAssigned,
    /// `import.morph_targets_dropped`: morph targets left out
    ImportMorphTargetsDropped,
    /// `import.morph_weights_applied`: the default morph weights (mesh or node weights) shape … primitives: applied to their positions (and normals where the targets have them), a
    ImportMorphWeightsApplied,
    /// `import.node_hidden`: … nodes hidden by KHR_node_visibility (visible: false, or under a hidden node): their meshes were left out: …
    ImportNodeHidden,
    /// `import.nodes_reordered`: nodes were reordered so that every parent comes before its children
    ImportNodesReordered,
    /// `import.normals_computed`: vertex normals were missing on … meshes (glTF) or mesh parts (OBJ) and were computed from the faces
    ImportNormalsComputed,
    /// `import.normals_not_finite`: … vertex normals were NaN or infinite (Blender writes NaN where coordinates near 1e19 and beyond overflow its face normals): computed from the faces
    ImportNormalsNotFinite,
    /// `import.original_edited`: the file is the model mshconv exported, edited: … written again, every other table kept as it was
    ImportOriginalEdited,
    /// `import.original_changed`: the model given as the original (the one written over, or --original) is not the one the file was exported from: the model was rebuilt from its content
    ImportOriginalChanged,
    /// `import.original_kept`: the file is the model mshconv exported, unedited: the original bytes were written
    ImportOriginalKept,
    /// `import.original_missing`: the file is an mshconv export another tool rewrote, and no original was given: the model was rebuilt from its content
    ImportOriginalMissing,
    /// `import.original_rebuilt`: the file is the model mshconv exported, with nodes or triangles added, removed or re-parented: the model was rebuilt from its content, with
    ImportOriginalRebuilt,
    /// `import.primitive_skipped`: … primitives that are not triangles (points or lines) were left out (only triangles are models), of mesh ……
    ImportPrimitiveSkipped,
    /// `import.rebuilt`: the file was written by mshconv but …; the model was rebuilt from its content
    ImportRebuilt,
    /// `import.scale_animation_ignored`: scale animation ignored on … nodes: MSH nodes cannot hold it
    ImportScaleAnimationIgnored,
    /// `import.scale_sheared`: … rotations are animated under a non-uniformly scaled node, which rigid MSH nodes cannot show exactly: …; largest position error … over the animation (…)
    ImportScaleSheared,
    /// `import.scale_baked`: node scale was baked into the geometry (MSH nodes have no scale)
    ImportScaleBaked,
    /// `import.skin_blended`: the largest position error of blended weights
    ImportSkinBlended,
    /// `import.skin_rigid`: a skin made into rigid nodes
    ImportSkinRigid,
    /// `import.skin_unused`: a skin no mesh uses
    ImportSkinUnused,
    /// `import.terrain_edited`: this terrain model's glTF …; importing a terrain from edited geometry is not supported (its Res21/Res11/Res14 tables come back only from an
    ImportTerrainEdited,
    /// `import.texture_transform_baked`: KHR_texture_transform of the base colour textures was baked into the texture coordinates
    ImportTextureTransformBaked,
    /// `import.texture_without_image`: texture(s) … have no image (no source, no image extension): materials use no texture there
    ImportTextureWithoutImage,
    /// `import.unused_ignored`: … objects nothing uses hold values outside the glTF lists (the Khronos validator warns of them), ignored: …
    ImportUnusedIgnored,
    /// `import.uv_set`: the base colour texture reads TEXCOORD_… on … primitives: that set (with its texture transform) became their UVs (Res5)
    ImportUvSet,
    /// `import.uvs_clamped`: … pieces of texture coordinates span more than Res5's 64 repeats and were clamped to -32..+32: split them or scale their UVs down
    ImportUvsClamped,
    /// `import.uvs_shifted`: … pieces of texture coordinates beyond Res5's range (-32 to +32) were moved by whole texture repeats into it (the same texels under repeat w
    ImportUvsShifted,
    /// `import.uvs_zero`: … meshes have no texture coordinates; they were set to 0
    ImportUvsZero,
    /// `look.base_color_dropped`: … materials have a base colour factor other than white: the game's materials do not hold one, so it was dropped: …
    LookBaseColorDropped,
    /// `look.image_unreadable`: an image of the glTF does not read: its material comes back without it
    LookImageUnreadable,
    /// `look.missing_image`: …: the image is not available (give it beside the .obj, by a plain file name)
    LookMissingImage,
    /// `look.obj_fallback_kept`: material … showed … by the runtime's fallback (…): its WEAR row stays as it is
    LookObjFallbackKept,
    /// `look.obj_material_unnamed`: material … has no mat<index> name: its look is not brought back (its WEAR row stays)
    LookObjMaterialUnnamed,
    /// `model.too_many_batches`: more than 65535 batches or slots: use fewer materials or pieces
    ModelTooManyBatches,
    /// `model.too_many_nodes`: … nodes; an MSH model holds at most …: join objects first
    ModelTooManyNodes,
    /// `model.too_many_triangles`: the model has more than … triangles (… so far); MSH models hold at most …: decimate it or split it into several models
    ModelTooManyTriangles,
    /// `obj.animation_dropped`: the model is animated; OBJ holds no animation, only the rest pose is written
    ObjAnimationDropped,
    /// `obj.attribute_dropped`: … face(s) (the first on line …) name … past those defined: those faces have no …
    ObjAttributeDropped,
    /// `obj.bad_face`: face corner … is not v, v/vt, v//vn or v/vt/vn
    ObjBadFace,
    /// `obj.bad_index`: … is not a … index (an integer within range)
    ObjBadIndex,
    /// `obj.bad_number`: 'v' needs 3 numbers (x y z), optionally a 4th (w) or 3 more (r g b); found …
    ObjBadNumber,
    /// `obj.empty_objects`: … object(s) without faces were left out
    ObjEmptyObjects,
    /// `obj.fan_triangulation`: … non-convex polygon(s) could not be ear-clipped (self-intersecting or very large) and were cut as fans
    ObjFanTriangulation,
    /// `obj.legacy_nodes`: the model has the legacy 24-byte node table (MTCHECK.MSH), whose nodes are not decoded, so there is no hierarchy to pose for OBJ; convert it
    ObjLegacyNodes,
    /// `obj.lines_ignored`: … line/point statement(s) ('l', 'p') were ignored: MSH holds triangles only
    ObjLinesIgnored,
    /// `obj.material_assigned`: … has no mat<index> name; it becomes MSH material …
    ObjMaterialAssigned,
    /// `obj.material_undefined`: material … (line …) is not defined in the MTL
    ObjMaterialUndefined,
    /// `obj.mtl_not_utf8`: the MTL is not UTF-8 text
    ObjMtlNotUtf8,
    /// `obj.no_faces`: the OBJ has no faces ('f' statements), so there is no geometry for an MSH model
    ObjNoFaces,
    /// `obj.nodes_without_geometry`: … of … node(s) have no triangles at LOD … group … and are not in the OBJ
    ObjNodesWithoutGeometry,
    /// `obj.non_finite`: vertex … of node … (…) is not a finite number once posed; fix the position or the node's rest pose in the MSH first
    ObjNonFinite,
    /// `obj.not_utf8`: the OBJ is not UTF-8 text
    ObjNotUtf8,
    /// `obj.partial_normals`: some face corners have no usable normal (missing or zero length); their meshes' normals are computed from the faces
    ObjPartialNormals,
    /// `obj.partial_uvs`: some face corners have no texture coordinate while others in the same material do; those were set to 0
    ObjPartialUvs,
    /// `obj.pose_baked`: geometry is written in world space with each node's rest pose applied through the hierarchy; OBJ has no node transforms, so it comes back ba
    ObjPoseBaked,
    /// `obj.slots_dropped`: … slot reference(s) at other LOD/groups are not written; OBJ holds one LOD/group (choose it with lod/group)
    ObjSlotsDropped,
    /// `obj.statement_ignored`: '…' statements were ignored (not geometry MSH can hold)
    ObjStatementIgnored,
    /// `obj.terrain`: terrain models (Res21 triangles, no Res6/Res13) are not written as OBJ, which could not bring their tables back; convert it to glTF instead,
    ObjTerrain,
    /// `obj.too_many_materials`: more than 65536 materials: MSH material indices are 16-bit; merge materials first
    ObjTooManyMaterials,
    /// `obj.winding_flipped`: triangles wind clockwise seen from their normals' side; written reversed so OBJ's counter-clockwise front faces match (an import keeps the O
    ObjWindingFlipped,
    /// `obj.zero_normal`: zero-length vertex normals are written as their node's +Z
    ObjZeroNormal,
    /// `option.invalid`: an option value out of range
    OptionInvalid,
    /// `option.no_such_animation`: there is no animation …
    OptionNoSuchAnimation,
    /// `scene.attribute_length`: a batch has … positions but … …
    SceneAttributeLength,
    /// `scene.bad_index`: triangle … refers to a vertex past the batch's … vertices
    SceneBadIndex,
    /// `scene.bad_parent`: node …'s parent … does not exist
    SceneBadParent,
    /// `scene.bad_slot`: LOD … group … does not exist (LOD 0-2, group 0-4)
    SceneBadSlot,
    /// `scene.duplicate_slot`: a node has two pieces for LOD … group …
    SceneDuplicateSlot,
    /// `scene.non_finite`: a vertex position is not a finite number
    SceneNonFinite,
    /// `scene.parent_cycle`: node … is part of a parent cycle: the hierarchy must be a tree
    SceneParentCycle,
    /// `usd.degenerate_quaternion`: some rotation keys are not unit length; written normalised
    UsdDegenerateQuaternion,
    /// `usd.legacy_nodes`: legacy 24-byte node table: not decoded; every slot is shown under the root prim
    UsdLegacyNodes,
    /// `usd.opacity`: a material's alpha is written as opacity
    UsdOpacity,
    /// `usd.out_of_range`: … lie outside the model's tables
    UsdOutOfRange,
    /// `usd.terrain`: terrain models (Res21 triangles, no Res6/Res13) are not written as USD; convert it to glTF instead, which shows the terrain's triangles and
    UsdTerrain,
    /// `usd.winding_flipped`: triangles wind clockwise seen from their normals' side; written reversed so USD's counter-clockwise (rightHanded) front faces match, as in t
    UsdWindingFlipped,
}

impl Code {
    /// Every code, for documentation and tests.
    pub const ALL: &'static [Code] = &[
        Code::AnimTooLong,
        Code::ClipsInvalid,
        Code::ClipsKeyTimeDuplicate,
        Code::ClipsKeyTimeInvalid,
        Code::ClipsKeyTimeOrder,
        Code::ClipsNoTrack,
        Code::ClipsPastTimeline,
        Code::ExportAlphaMode,
        Code::ExportAnimationBaked,
        Code::ExportClipsIgnored,
        Code::ExportDegenerateQuaternion,
        Code::ExportGlb,
        Code::ExportJson,
        Code::ExportLegacyNodes,
        Code::ExportNonFinite,
        Code::ExportRangesOverlap,
        Code::ExportTerrain,
        Code::ExportTerrainSkipped,
        Code::ExportWindingFlipped,
        Code::ExportZeroNormal,
        Code::GlbMalformed,
        Code::GltfAccessorOutOfRange,
        Code::GltfAccessorTooLarge,
        Code::GltfAccessorType,
        Code::GltfBadAccessor,
        Code::GltfBadBuffer,
        Code::GltfBadDataUri,
        Code::GltfBadExtras,
        Code::GltfBadIndex,
        Code::GltfBadSampler,
        Code::GltfBadStride,
        Code::GltfBufferShort,
        Code::GltfDataReused,
        Code::GltfDecodedTooLarge,
        Code::GltfDracoInvalid,
        Code::GltfExtensionRequired,
        Code::GltfInstancesTooMany,
        Code::GltfInstancingInvalid,
        Code::GltfInvalid,
        Code::GltfJsonTooLarge,
        Code::GltfMeshoptInvalid,
        Code::GltfMissingBin,
        Code::GltfMissingBuffer,
        Code::GltfMissingUri,
        Code::GltfMorphInvalid,
        Code::GltfNodeCycle,
        Code::GltfNonFinite,
        Code::GltfSkinInvalid,
        Code::GltfSparseOutOfRange,
        Code::GltfTooManyMaterials,
        Code::GltfUriRefused,
        Code::GltfViewOutOfRange,
        Code::ImageInvalid,
        Code::ImageTooLarge,
        Code::ImageUnsupported,
        Code::ImportAnimationsMerged,
        Code::ImportBatchSplit,
        Code::ImportCamerasIgnored,
        Code::ImportChannelIgnored,
        Code::ImportClipList,
        Code::ImportClips,
        Code::ImportCustomPropertiesMissing,
        Code::ImportDegenerateTransform,
        Code::ImportExtensionIgnored,
        Code::ImportInstancesExpanded,
        Code::ImportInvalidResult,
        Code::ImportKeysReduced,
        Code::ImportMaterialAssigned,
        Code::ImportMorphTargetsDropped,
        Code::ImportMorphWeightsApplied,
        Code::ImportNodeHidden,
        Code::ImportNodesReordered,
        Code::ImportNormalsComputed,
        Code::ImportNormalsNotFinite,
        Code::ImportOriginalEdited,
        Code::ImportOriginalChanged,
        Code::ImportOriginalKept,
        Code::ImportOriginalMissing,
        Code::ImportOriginalRebuilt,
        Code::ImportPrimitiveSkipped,
        Code::ImportRebuilt,
        Code::ImportScaleAnimationIgnored,
        Code::ImportScaleBaked,
        Code::ImportScaleSheared,
        Code::ImportSkinBlended,
        Code::ImportSkinRigid,
        Code::ImportSkinUnused,
        Code::ImportTerrainEdited,
        Code::ImportTextureTransformBaked,
        Code::ImportTextureWithoutImage,
        Code::ImportUnusedIgnored,
        Code::ImportUvSet,
        Code::ImportUvsClamped,
        Code::ImportUvsShifted,
        Code::ImportUvsZero,
        Code::LookBaseColorDropped,
        Code::LookImageUnreadable,
        Code::LookMissingImage,
        Code::LookObjFallbackKept,
        Code::LookObjMaterialUnnamed,
        Code::ModelTooManyBatches,
        Code::ModelTooManyNodes,
        Code::ModelTooManyTriangles,
        Code::ObjAnimationDropped,
        Code::ObjAttributeDropped,
        Code::ObjBadFace,
        Code::ObjBadIndex,
        Code::ObjBadNumber,
        Code::ObjEmptyObjects,
        Code::ObjFanTriangulation,
        Code::ObjLegacyNodes,
        Code::ObjLinesIgnored,
        Code::ObjMaterialAssigned,
        Code::ObjMaterialUndefined,
        Code::ObjMtlNotUtf8,
        Code::ObjNoFaces,
        Code::ObjNodesWithoutGeometry,
        Code::ObjNonFinite,
        Code::ObjNotUtf8,
        Code::ObjPartialNormals,
        Code::ObjPartialUvs,
        Code::ObjPoseBaked,
        Code::ObjSlotsDropped,
        Code::ObjStatementIgnored,
        Code::ObjTerrain,
        Code::ObjTooManyMaterials,
        Code::ObjWindingFlipped,
        Code::ObjZeroNormal,
        Code::OptionInvalid,
        Code::OptionNoSuchAnimation,
        Code::SceneAttributeLength,
        Code::SceneBadIndex,
        Code::SceneBadParent,
        Code::SceneBadSlot,
        Code::SceneDuplicateSlot,
        Code::SceneNonFinite,
        Code::SceneParentCycle,
        Code::UsdDegenerateQuaternion,
        Code::UsdLegacyNodes,
        Code::UsdOpacity,
        Code::UsdOutOfRange,
        Code::UsdTerrain,
        Code::UsdWindingFlipped,
    ];

    /// The stable machine-readable code.
    pub const fn code(self) -> &'static str {
        match self {
            Code::AnimTooLong => "anim.too_long",
            Code::ClipsInvalid => "clips.invalid",
            Code::ClipsKeyTimeDuplicate => "clips.key_time_duplicate",
            Code::ClipsKeyTimeInvalid => "clips.key_time_invalid",
            Code::ClipsKeyTimeOrder => "clips.key_time_order",
            Code::ClipsNoTrack => "clips.no_track",
            Code::ClipsPastTimeline => "clips.past_timeline",
            Code::ExportAlphaMode => "export.alpha_mode",
            Code::ExportAnimationBaked => "export.animation_baked",
            Code::ExportClipsIgnored => "export.clips_ignored",
            Code::ExportDegenerateQuaternion => "export.degenerate_quaternion",
            Code::ExportGlb => "export.glb",
            Code::ExportJson => "export.json",
            Code::ExportLegacyNodes => "export.legacy_nodes",
            Code::ExportNonFinite => "export.non_finite",
            Code::ExportRangesOverlap => "export.ranges_overlap",
            Code::ExportTerrain => "export.terrain",
            Code::ExportTerrainSkipped => "export.terrain_skipped",
            Code::ExportWindingFlipped => "export.winding_flipped",
            Code::ExportZeroNormal => "export.zero_normal",
            Code::GlbMalformed => "glb.malformed",
            Code::GltfAccessorOutOfRange => "gltf.accessor_out_of_range",
            Code::GltfAccessorTooLarge => "gltf.accessor_too_large",
            Code::GltfAccessorType => "gltf.accessor_type",
            Code::GltfBadAccessor => "gltf.bad_accessor",
            Code::GltfBadBuffer => "gltf.bad_buffer",
            Code::GltfBadDataUri => "gltf.bad_data_uri",
            Code::GltfBadExtras => "gltf.bad_extras",
            Code::GltfBadIndex => "gltf.bad_index",
            Code::GltfBadSampler => "gltf.bad_sampler",
            Code::GltfBadStride => "gltf.bad_stride",
            Code::GltfBufferShort => "gltf.buffer_short",
            Code::GltfDataReused => "gltf.data_reused",
            Code::GltfDecodedTooLarge => "gltf.decoded_too_large",
            Code::GltfDracoInvalid => "gltf.draco_invalid",
            Code::GltfExtensionRequired => "gltf.extension_required",
            Code::GltfInstancesTooMany => "gltf.instances_too_many",
            Code::GltfInstancingInvalid => "gltf.instancing_invalid",
            Code::GltfInvalid => "gltf.invalid",
            Code::GltfJsonTooLarge => "gltf.json_too_large",
            Code::GltfMeshoptInvalid => "gltf.meshopt_invalid",
            Code::GltfMissingBin => "gltf.missing_bin",
            Code::GltfMissingBuffer => "gltf.missing_buffer",
            Code::GltfMissingUri => "gltf.missing_uri",
            Code::GltfMorphInvalid => "gltf.morph_invalid",
            Code::GltfNodeCycle => "gltf.node_cycle",
            Code::GltfNonFinite => "gltf.non_finite",
            Code::GltfSkinInvalid => "gltf.skin_invalid",
            Code::GltfSparseOutOfRange => "gltf.sparse_out_of_range",
            Code::GltfTooManyMaterials => "gltf.too_many_materials",
            Code::GltfUriRefused => "gltf.uri_refused",
            Code::GltfViewOutOfRange => "gltf.view_out_of_range",
            Code::ImageInvalid => "image.invalid",
            Code::ImageTooLarge => "image.too_large",
            Code::ImageUnsupported => "image.unsupported",
            Code::ImportAnimationsMerged => "import.animations_merged",
            Code::ImportBatchSplit => "import.batch_split",
            Code::ImportCamerasIgnored => "import.cameras_ignored",
            Code::ImportChannelIgnored => "import.channel_ignored",
            Code::ImportClipList => "import.clip_list",
            Code::ImportClips => "import.clips",
            Code::ImportCustomPropertiesMissing => "import.custom_properties_missing",
            Code::ImportDegenerateTransform => "import.degenerate_transform",
            Code::ImportExtensionIgnored => "import.extension_ignored",
            Code::ImportInstancesExpanded => "import.instances_expanded",
            Code::ImportInvalidResult => "import.invalid_result",
            Code::ImportKeysReduced => "import.keys_reduced",
            Code::ImportMaterialAssigned => "import.material_assigned",
            Code::ImportMorphTargetsDropped => "import.morph_targets_dropped",
            Code::ImportMorphWeightsApplied => "import.morph_weights_applied",
            Code::ImportNodeHidden => "import.node_hidden",
            Code::ImportNodesReordered => "import.nodes_reordered",
            Code::ImportNormalsComputed => "import.normals_computed",
            Code::ImportNormalsNotFinite => "import.normals_not_finite",
            Code::ImportOriginalEdited => "import.original_edited",
            Code::ImportOriginalChanged => "import.original_changed",
            Code::ImportOriginalKept => "import.original_kept",
            Code::ImportOriginalMissing => "import.original_missing",
            Code::ImportOriginalRebuilt => "import.original_rebuilt",
            Code::ImportPrimitiveSkipped => "import.primitive_skipped",
            Code::ImportRebuilt => "import.rebuilt",
            Code::ImportScaleAnimationIgnored => "import.scale_animation_ignored",
            Code::ImportScaleBaked => "import.scale_baked",
            Code::ImportScaleSheared => "import.scale_sheared",
            Code::ImportSkinBlended => "import.skin_blended",
            Code::ImportSkinRigid => "import.skin_rigid",
            Code::ImportSkinUnused => "import.skin_unused",
            Code::ImportTerrainEdited => "import.terrain_edited",
            Code::ImportTextureTransformBaked => "import.texture_transform_baked",
            Code::ImportTextureWithoutImage => "import.texture_without_image",
            Code::ImportUnusedIgnored => "import.unused_ignored",
            Code::ImportUvSet => "import.uv_set",
            Code::ImportUvsClamped => "import.uvs_clamped",
            Code::ImportUvsShifted => "import.uvs_shifted",
            Code::ImportUvsZero => "import.uvs_zero",
            Code::LookBaseColorDropped => "look.base_color_dropped",
            Code::LookImageUnreadable => "look.image_unreadable",
            Code::LookMissingImage => "look.missing_image",
            Code::LookObjFallbackKept => "look.obj_fallback_kept",
            Code::LookObjMaterialUnnamed => "look.obj_material_unnamed",
            Code::ModelTooManyBatches => "model.too_many_batches",
            Code::ModelTooManyNodes => "model.too_many_nodes",
            Code::ModelTooManyTriangles => "model.too_many_triangles",
            Code::ObjAnimationDropped => "obj.animation_dropped",
            Code::ObjAttributeDropped => "obj.attribute_dropped",
            Code::ObjBadFace => "obj.bad_face",
            Code::ObjBadIndex => "obj.bad_index",
            Code::ObjBadNumber => "obj.bad_number",
            Code::ObjEmptyObjects => "obj.empty_objects",
            Code::ObjFanTriangulation => "obj.fan_triangulation",
            Code::ObjLegacyNodes => "obj.legacy_nodes",
            Code::ObjLinesIgnored => "obj.lines_ignored",
            Code::ObjMaterialAssigned => "obj.material_assigned",
            Code::ObjMaterialUndefined => "obj.material_undefined",
            Code::ObjMtlNotUtf8 => "obj.mtl_not_utf8",
            Code::ObjNoFaces => "obj.no_faces",
            Code::ObjNodesWithoutGeometry => "obj.nodes_without_geometry",
            Code::ObjNonFinite => "obj.non_finite",
            Code::ObjNotUtf8 => "obj.not_utf8",
            Code::ObjPartialNormals => "obj.partial_normals",
            Code::ObjPartialUvs => "obj.partial_uvs",
            Code::ObjPoseBaked => "obj.pose_baked",
            Code::ObjSlotsDropped => "obj.slots_dropped",
            Code::ObjStatementIgnored => "obj.statement_ignored",
            Code::ObjTerrain => "obj.terrain",
            Code::ObjTooManyMaterials => "obj.too_many_materials",
            Code::ObjWindingFlipped => "obj.winding_flipped",
            Code::ObjZeroNormal => "obj.zero_normal",
            Code::OptionInvalid => "option.invalid",
            Code::OptionNoSuchAnimation => "option.no_such_animation",
            Code::SceneAttributeLength => "scene.attribute_length",
            Code::SceneBadIndex => "scene.bad_index",
            Code::SceneBadParent => "scene.bad_parent",
            Code::SceneBadSlot => "scene.bad_slot",
            Code::SceneDuplicateSlot => "scene.duplicate_slot",
            Code::SceneNonFinite => "scene.non_finite",
            Code::SceneParentCycle => "scene.parent_cycle",
            Code::UsdDegenerateQuaternion => "usd.degenerate_quaternion",
            Code::UsdLegacyNodes => "usd.legacy_nodes",
            Code::UsdOpacity => "usd.opacity",
            Code::UsdOutOfRange => "usd.out_of_range",
            Code::UsdTerrain => "usd.terrain",
            Code::UsdWindingFlipped => "usd.winding_flipped",
        }
    }
}

#[cfg(test)]
mod tests;
