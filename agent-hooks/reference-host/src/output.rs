//! Output mediation (§12.1, §12.1a): buffered by default; incremental
//! release gated by a watermark, so nothing leaves ahead of a covering verdict.

pub use crate::errors::ReleaseError;
use serde_json::Value;

/// How model output reaches the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OutputMode {
    /// Assemble the whole response before `post_model_call`; release only
    /// after `output` permits.
    #[default]
    Buffered,
    /// One `post_model_call` per stream segment; release each permitted
    /// segment (declares `buffered_output: false` and `incremental_output`).
    Incremental,
}

/// The watermark of an incremental stream: everything before it has been
/// released to the caller, and only verdicted content moves it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Watermark {
    released: String,
    used: bool,
}

impl Watermark {
    /// A watermark at the start of the stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Release the part of a permitted segment's content beyond the watermark.
    pub fn release(&mut self, permitted_content: &Value) -> Result<(), ReleaseError> {
        self.used = true;
        let Some(text) = permitted_content.as_str() else {
            return Err(ReleaseError::Diverged);
        };
        if !text.starts_with(self.released.as_str()) {
            return Err(ReleaseError::Diverged);
        }
        self.released = text.to_owned();
        Ok(())
    }

    /// Everything released so far.
    pub fn released(&self) -> &str {
        &self.released
    }

    /// Whether any segment was offered (the run streamed).
    pub fn streamed(&self) -> bool {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn permitted_segments_advance_the_watermark() {
        let mut w = Watermark::new();
        w.release(&json!("the quick ")).expect("extends");
        w.release(&json!("the quick brown fox")).expect("extends");
        assert_eq!(w.released(), "the quick brown fox");
    }

    #[test]
    fn rewriting_released_text_is_refused() {
        let mut w = Watermark::new();
        w.release(&json!("abc")).expect("extends");
        assert_eq!(w.release(&json!("xbc def")), Err(ReleaseError::Diverged));
        assert_eq!(w.released(), "abc");
        assert_eq!(w.release(&json!(3)), Err(ReleaseError::Diverged));
    }
}
