//! Sparse accessors: the listed elements replace those of the base (the
//! buffer view's elements, or zeros), every index and range checked.

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};

/// The sparse part of one accessor, its views' bytes already located.
pub(crate) struct Sparse<'a> {
    /// The accessor's index (for messages).
    pub accessor: usize,
    /// How many elements are replaced.
    pub count: usize,
    /// The indices' bytes from their offset on (`None`: the offset is past the view).
    pub indices: Option<&'a [u8]>,
    /// The size of one index: 1, 2 or 4 bytes.
    pub index_size: usize,
    /// The values' bytes from their offset on (`None`: the offset is past the view).
    pub values: Option<&'a [u8]>,
}

fn invalid(code: &str, message: String) -> Error {
    Error::new(ErrorKind::InvalidInput, code, message)
}

/// Writes the sparse values over `dense` (packed elements of `size` bytes).
pub(crate) fn apply_sparse(dense: &mut [u8], size: usize, sparse: Sparse<'_>) -> Result<()> {
    let a = sparse.accessor;
    let n = sparse.count;
    fn fits(bytes: Option<&[u8]>, n: usize, each: usize) -> Option<&[u8]> {
        bytes.filter(|b| n.checked_mul(each).is_some_and(|need| need <= b.len()))
    }
    let indices = fits(sparse.indices, n, sparse.index_size).ok_or_else(|| {
        invalid(
            Code::GltfAccessorOutOfRange.code(),
            format!("/accessors/{a}/sparse/indices: {n} indices run past their buffer view"),
        )
    })?;
    let values = fits(sparse.values, n, size).ok_or_else(|| {
        invalid(
            Code::GltfAccessorOutOfRange.code(),
            format!("/accessors/{a}/sparse/values: {n} values of {size} bytes run past their buffer view"),
        )
    })?;
    let elements = dense.len() / size.max(1);
    for (k, (index, value)) in indices
        .chunks_exact(sparse.index_size)
        .zip(values.chunks_exact(size))
        .take(n)
        .enumerate()
    {
        let i = index
            .iter()
            .rev()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        if i >= elements {
            return Err(invalid(
                Code::GltfSparseOutOfRange.code(),
                format!("/accessors/{a}/sparse/indices: index {k} is {i}, past the accessor's {elements} elements"),
            ));
        }
        dense[i * size..(i + 1) * size].copy_from_slice(value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_replace_the_listed_elements_and_bad_indices_are_refused() {
        let mut dense = vec![0u8; 8];
        let indices = [3u8, 0, 1, 0];
        let values = [7u8, 7, 9, 9];
        let sparse = |indices, values| Sparse {
            accessor: 0,
            count: 2,
            indices: Some(indices),
            index_size: 2,
            values: Some(values),
        };
        apply_sparse(&mut dense, 2, sparse(&indices, &values)).unwrap();
        assert_eq!(dense, [0, 0, 9, 9, 0, 0, 7, 7]);
        let e = apply_sparse(&mut dense, 2, sparse(&[4, 0, 0, 0], &values)).unwrap_err();
        assert_eq!(e.code(), "gltf.sparse_out_of_range");
        let e = apply_sparse(&mut dense, 2, sparse(&indices, &values[..3])).unwrap_err();
        assert_eq!(e.code(), "gltf.accessor_out_of_range");
    }
}
