# blender_reexport.py: run by Blender (blender -b --factory-startup --python blender_reexport.py
# -- IN.glb OUT.glb): imports IN.glb with Blender's glTF importer into an empty scene and
# exports the scene again with the exporter's defaults, as a modder's "File > Export > glTF"
# does: every animated channel sampled at every frame.
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses numpy.bool, gone from numpy 1.24
import bpy  # noqa: E402

source, target = sys.argv[sys.argv.index("--") + 1:]
bpy.ops.wm.read_homefile(use_empty=True)
bpy.ops.import_scene.gltf(filepath=source)
bpy.ops.export_scene.gltf(filepath=target, export_format="GLB")
print("blender: exported", target, "from", source, flush=True)
