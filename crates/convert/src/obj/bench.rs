//! Measurements behind docs/OBJ.md (placeholder, filled in below).
