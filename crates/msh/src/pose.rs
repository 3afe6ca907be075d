//! Poses through the hierarchy.
