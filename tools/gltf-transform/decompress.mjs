// Writes a glTF's meshopt-compressed buffer views uncompressed, decoded by
// glTF-Transform with meshoptimizer's own decoder (the reference the meshopt
// import test compares mshconv's decoder with). Everything else is kept,
// including quantized (KHR_mesh_quantization) accessors.
// Usage: node decompress.mjs INPUT OUTPUT
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder } from 'meshoptimizer';

await MeshoptDecoder.ready;
const io = new NodeIO()
  .registerExtensions(ALL_EXTENSIONS)
  .registerDependencies({ 'meshopt.decoder': MeshoptDecoder });
const doc = await io.read(process.argv[2]);
for (const ext of doc.getRoot().listExtensionsUsed()) {
  if (ext.extensionName === 'EXT_meshopt_compression') ext.dispose();
}
await io.write(process.argv[3], doc);
