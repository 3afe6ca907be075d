//! Draco test inputs: a generated grid as a plain glTF (for glTF-Transform's
//! `draco` to compress), and where a GLB keeps a primitive's Draco stream.

/// A grid of `n` x `n` quads over (0..2, 0..1), rising to z = 0.5 and with
/// a wave of height `wave`: its positions and texture coordinates by point
/// (row-major), its triangles, and itself as a plain glTF with the buffer
/// inline. Normals are those of the wave alone.
pub struct Grid {
    /// Positions by point.
    pub positions: Vec<[f32; 3]>,
    /// Texture coordinates by point.
    pub uvs: Vec<[f32; 2]>,
    /// Triangles as point indices.
    pub triangles: Vec<[u16; 3]>,
    /// The plain glTF.
    pub gltf: String,
}

pub fn grid(n: u16, wave: f32) -> Grid {
    use base64::Engine as _;
    let step = 1.0 / f32::from(n);
    let (mut positions, mut normals, mut uvs) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..=n {
        for i in 0..=n {
            let (u, v) = (f32::from(i) * step, f32::from(j) * step);
            let (x, y) = (2.0 * u, v);
            let z = 0.5 * y + wave * (3.0 * x).sin() * (5.0 * y).cos();
            positions.push([x, y, z]);
            let d = [
                -wave * 3.0 * (3.0 * x).cos() * (5.0 * y).cos(),
                wave * 5.0 * (3.0 * x).sin() * (5.0 * y).sin(),
            ];
            let len = (d[0] * d[0] + d[1] * d[1] + 1.0).sqrt();
            normals.push([d[0] / len, d[1] / len, 1.0 / len]);
            uvs.push([u, v]);
        }
    }
    let at = |i: u16, j: u16| j * (n + 1) + i;
    let triangles: Vec<[u16; 3]> = (0..n)
        .flat_map(|j| (0..n).map(move |i| (i, j)))
        .flat_map(|(i, j)| {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            [[a, b, c], [a, c, d]]
        })
        .collect();
    let mut bin = Vec::new();
    let floats = positions.iter().flatten().chain(normals.iter().flatten());
    floats
        .chain(uvs.iter().flatten())
        .for_each(|v| bin.extend_from_slice(&v.to_le_bytes()));
    triangles
        .iter()
        .flatten()
        .for_each(|i| bin.extend_from_slice(&i.to_le_bytes()));
    let (points, corners) = (positions.len(), triangles.len() * 3);
    let (lo, hi) = (0..3).fold(([f32::MAX; 3], [f32::MIN; 3]), |(mut lo, mut hi), k| {
        positions.iter().for_each(|p| {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        });
        (lo, hi)
    });
    let data = base64::engine::general_purpose::STANDARD.encode(&bin);
    let gltf = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1,"TEXCOORD_0":2}},"indices":3}}]}}],
"accessors":[
{{"bufferView":0,"componentType":5126,"count":{points},"type":"VEC3","min":{lo:?},"max":{hi:?}}},
{{"bufferView":0,"byteOffset":{n_at},"componentType":5126,"count":{points},"type":"VEC3"}},
{{"bufferView":0,"byteOffset":{uv_at},"componentType":5126,"count":{points},"type":"VEC2"}},
{{"bufferView":1,"componentType":5123,"count":{corners},"type":"SCALAR"}}],
"bufferViews":[{{"buffer":0,"byteLength":{floats}}},{{"buffer":0,"byteOffset":{floats},"byteLength":{index_bytes}}}],
"buffers":[{{"byteLength":{total},"uri":"data:application/octet-stream;base64,{data}"}}]}}"#,
        n_at = points * 12,
        uv_at = points * 24,
        floats = points * 32,
        index_bytes = corners * 2,
        total = bin.len(),
    );
    Grid {
        positions,
        uvs,
        triangles,
        gltf,
    }
}

/// Where the Draco stream of a GLB's first primitive lies in the GLB, and
/// the primitive's `KHR_draco_mesh_compression` object.
pub fn first_stream(bytes: &[u8]) -> (std::ops::Range<usize>, serde_json::Value) {
    let json = crate::common_gltf::gltf_transform::glb_json(bytes);
    let ext =
        json["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"].clone();
    let view = &json["bufferViews"][ext["bufferView"].as_u64().unwrap() as usize];
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let start = 20 + json_len + 8 + view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let end = start + view["byteLength"].as_u64().unwrap() as usize;
    (start..end, ext)
}
