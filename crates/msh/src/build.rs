//! Derived tables: triangle descriptors, bounds, canonical animation layout.
