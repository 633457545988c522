// Fixture for `ctk coverage --repo`: not compiled, only searched.
#[test]
fn pins_3b() {}
