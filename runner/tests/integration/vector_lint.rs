//! `ctk::vector::load::lint` over whole vector sets and over one fixture per
//! rule (`tests/data/coverage/lint/`).

use ctk::catalog::Catalogs;
use ctk::vector::load::{lint, load, VectorSource};

use crate::upstream::{upstream, UPSTREAM_VECTORS};

#[test]
fn loads_every_upstream_vector_unchanged_and_lints_clean() {
    let Some(dir) = upstream(UPSTREAM_VECTORS) else {
        return;
    };
    let vectors = load(&VectorSource::Dir(dir)).expect("upstream vectors load");
    assert_eq!(vectors.len(), 51);
    assert_eq!(vectors[0].vector.id, "AH-CTK-001");
    let none = Catalogs::default();
    let errors = lint(&vectors, &none);
    assert!(errors.is_empty(), "{errors:?}");
    let big = vectors
        .iter()
        .find(|v| v.vector.id == "AH-CTK-091")
        .expect("091");
    assert!(big.vector.scenario.get().contains("18446744073709551616"));
}
