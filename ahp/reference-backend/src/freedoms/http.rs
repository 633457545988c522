//! A response body sent in pieces with no length announced, so hyper
//! frames it with chunked transfer coding (`http-message-framing`).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame};

use crate::http::ReplyBody;

/// The pieces of a body, sent one frame each.
struct Pieces(VecDeque<Bytes>);

impl Body for Pieces {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.pop_front().map(|b| Ok(Frame::data(b))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_empty()
    }
    // The default size_hint announces no exact length: chunked.
}

/// `body` as two chunks (one when it is shorter than two bytes).
pub(crate) fn chunked(body: Bytes) -> ReplyBody {
    let mut pieces = VecDeque::new();
    if body.len() >= 2 {
        let half = body.len() / 2;
        pieces.push_back(body.slice(..half));
        pieces.push_back(body.slice(half..));
    } else if !body.is_empty() {
        pieces.push_back(body);
    }
    Pieces(pieces).boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_pieces_make_the_whole_body_and_announce_no_length() {
        let body = chunked(Bytes::from_static(b"{\"a\":1}"));
        assert_eq!(body.size_hint().exact(), None);
        let whole = body.collect().await.unwrap().to_bytes();
        assert_eq!(&whole[..], b"{\"a\":1}");
    }
}
