"""Reads .usda files back with Pixar's USD (usd-core) for crates/formats/usd/tests/usd_export.rs.

Usage: python read_back.py DIR. For every DIR/*.usda (sorted), prints one JSON
line: the file, usd-core's own checks (every validator of its UsdValidation
framework, what `usdchecker` runs since UsdUtils.ComplianceChecker left
usd-core; the ComplianceChecker where an older usd-core still has it), the layer metadata, and
every prim (composed): path, type, display name, customData, visibility, the
mesh arrays, each node's local transform at the default time and, for every integer time code
from startTimeCode to endTimeCode, the local-to-world matrix (row-major, USD's
row-vector convention).
"""
import json
import math
import os
import sys

from pxr import Usd, UsdGeom, UsdUtils

try:
    from pxr import UsdValidation
except ImportError:  # usd-core before the validation framework
    UsdValidation = None


def num(v):
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def flat(values):
    out = []
    for v in values or []:
        try:
            out.extend(num(c) for c in v)
        except TypeError:
            out.append(num(v))
    return out


def matrix(m):
    return [num(m[r][c]) for r in range(4) for c in range(4)]


def findings(path, stage):
    """usd-core's findings on the file: (errors, warnings), as text."""
    if UsdValidation is not None:
        validators = UsdValidation.ValidationRegistry().GetOrLoadAllValidators()
        errors, warnings = [], []
        for e in UsdValidation.ValidationContext(validators).Validate(stage):
            if e.GetType() == UsdValidation.ValidationErrorType.Error:
                errors.append(e.GetErrorAsString())
            elif e.GetType() == UsdValidation.ValidationErrorType.Warn:
                warnings.append(e.GetErrorAsString())
        return errors, warnings
    checker = UsdUtils.ComplianceChecker()
    checker.CheckCompliance(path)
    return list(checker.GetErrors()) + list(checker.GetFailedChecks()), list(checker.GetWarnings())


def read(path):
    stage = Usd.Stage.Open(path)
    layer = stage.GetRootLayer()
    errors, warnings = findings(path, stage)
    doc = {
        "file": os.path.basename(path),
        "errors": errors,
        "warnings": warnings,
        "checker": "UsdValidation" if UsdValidation else "ComplianceChecker",
        "validators": len(UsdValidation.ValidationRegistry().GetOrLoadAllValidators()) if UsdValidation else 0,
        "up_axis": UsdGeom.GetStageUpAxis(stage),
        "meters_per_unit": UsdGeom.GetStageMetersPerUnit(stage),
        "time_codes_per_second": stage.GetTimeCodesPerSecond(),
        "frames_per_second": stage.GetFramesPerSecond(),
        "start": stage.GetStartTimeCode() if layer.HasStartTimeCode() else None,
        "end": stage.GetEndTimeCode() if layer.HasEndTimeCode() else None,
        "default_prim": stage.GetDefaultPrim().GetName(),
        "custom_layer_data": layer.customLayerData,
        "prims": [],
    }
    frames = []
    if doc["start"] is not None and doc["end"] is not None:
        frames = list(range(int(doc["start"]), int(doc["end"]) + 1))
    caches = [UsdGeom.XformCache(Usd.TimeCode(f)) for f in frames]
    for prim in stage.Traverse():
        p = {
            "path": str(prim.GetPath()),
            "type": prim.GetTypeName(),
            "display_name": prim.GetDisplayName(),
            "custom": {k: v for k, v in prim.GetCustomData().items() if isinstance(v, int)},
        }
        img = UsdGeom.Imageable(prim)
        if img:
            p["visibility"] = img.GetVisibilityAttr().Get()
        if prim.IsA(UsdGeom.Mesh):
            mesh = UsdGeom.Mesh(prim)
            p["points"] = flat(mesh.GetPointsAttr().Get())
            p["normals"] = flat(mesh.GetNormalsAttr().Get())
            p["normals_interpolation"] = mesh.GetNormalsInterpolation()
            st = UsdGeom.PrimvarsAPI(prim).GetPrimvar("st")
            p["st"] = flat(st.Get()) if st else []
            p["st_interpolation"] = st.GetInterpolation() if st else None
            primvars = UsdGeom.PrimvarsAPI(prim)
            for key, name in [("st1", "st1"), ("display_color", "displayColor"), ("display_opacity", "displayOpacity")]:
                pv = primvars.GetPrimvar(name)
                p[key] = flat(pv.Get()) if pv and pv.HasAuthoredValue() else []
                if pv and pv.HasAuthoredValue() and pv.GetInterpolation() != "vertex":
                    p[key] = ["interpolation " + pv.GetInterpolation()]
            p["counts"] = list(mesh.GetFaceVertexCountsAttr().Get() or [])
            p["indices"] = list(mesh.GetFaceVertexIndicesAttr().Get() or [])
            p["subsets"] = [
                [list(s.GetIndicesAttr().Get()), [str(t) for t in s.GetPrim().GetRelationship("material:binding").GetTargets()]]
                for s in UsdGeom.Subset.GetAllGeomSubsets(mesh)
            ]
        if prim.IsA(UsdGeom.Xform) and "mshNode" in p["custom"]:
            x = UsdGeom.Xformable(prim)
            p["order"] = [op.GetOpName() for op in x.GetOrderedXformOps()]
            p["local"] = matrix(x.GetLocalTransformation(Usd.TimeCode.Default()))
            p["samples"] = len(prim.GetAttribute("xformOp:transform").GetTimeSamples())
            p["world"] = [matrix(c.GetLocalToWorldTransform(prim)) for c in caches]
        doc["prims"].append(p)
    return doc


def main():
    folder = sys.argv[1]
    for name in sorted(os.listdir(folder)):
        if name.endswith(".usda"):
            print(json.dumps(read(os.path.join(folder, name)), sort_keys=True), flush=True)
    # usd-core's plugins may hang on interpreter teardown: leave at once.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
