//! The wire, read before tower-lsp-server's transport sees it. That transport stops reading at
//! the first frame it cannot decode, which would end the session on one bad message; so the
//! frames are cut here and only well-formed JSON-RPC messages are passed on:
//!
//! - bytes outside any frame are skipped up to the next `Content-Length` header;
//! - a header block without a usable `Content-Length` is answered with a parse error and
//!   skipped;
//! - a body that is not JSON is answered with a parse error (-32700, id null), a JSON body that
//!   is not a JSON-RPC message with an invalid-request error (-32600);
//! - the input ending inside a frame ends the session as the input ending between frames does.

use bytes::{Buf, Bytes, BytesMut};
use memchr::memmem;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;
use tower_lsp_server::jsonrpc::{Request, Response};

/// The header every frame has.
const CONTENT_LENGTH: &[u8] = b"Content-Length";
/// A header block longer than this is not one.
const MAX_HEADER_BYTES: usize = 8 << 10;
/// A larger body is refused rather than buffered (a whole workspace file is far smaller).
pub const MAX_BODY_BYTES: usize = 512 << 20;

/// What the input holds next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A frame's body.
    Body(Bytes),
    /// So many bytes outside any frame, skipped.
    Garbage(usize),
    /// A header block that gives no usable length; its bytes were skipped.
    BadHeader(String),
    /// The input ended `missing` bytes before the end of a frame.
    Truncated { missing: usize },
}

/// Cuts a byte stream into [`Event`]s. It never fails: whatever the bytes, it makes progress
/// and reports what it skipped.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    /// The body length of the frame whose header has been read.
    body_len: Option<usize>,
}

impl FrameDecoder {
    /// The next event of `src`, consuming its bytes; `None` until more input arrives.
    pub fn decode(&mut self, src: &mut BytesMut) -> Option<Event> {
        if let Some(len) = self.body_len {
            if src.len() < len {
                // The buffer grows as the body arrives, not by what the header claims.
                return None;
            }
            self.body_len = None;
            return Some(Event::Body(src.split_to(len).freeze()));
        }
        if src.is_empty() {
            return None;
        }
        let mut headers = [httparse::EMPTY_HEADER; 8];
        let reason = match httparse::parse_headers(src, &mut headers) {
            // A blank line between frames.
            Ok(httparse::Status::Complete((header_len, []))) => {
                src.advance(header_len);
                return Some(Event::Garbage(header_len));
            }
            Ok(httparse::Status::Complete((header_len, headers))) => {
                let named = headers
                    .iter()
                    .any(|h| h.name.eq_ignore_ascii_case("content-length"));
                // Bytes glued before the name make a header of another name.
                if !named && let Some(start @ 1..) = find_header(&src[..header_len]) {
                    src.advance(start);
                    return Some(Event::Garbage(start));
                }
                let len = body_len(headers);
                src.advance(header_len);
                return match len {
                    Ok(len) => {
                        self.body_len = Some(len);
                        self.decode(src)
                    }
                    Err(reason) => Some(Event::BadHeader(reason)),
                };
            }
            Ok(httparse::Status::Partial) if src.len() <= MAX_HEADER_BYTES => return None,
            Ok(httparse::Status::Partial) => {
                format!("no end of the header within {MAX_HEADER_BYTES} bytes")
            }
            Err(err) => format!("malformed header: {err}"),
        };
        match find_header(src) {
            // A header that starts as one but cannot be read: the scan for the next one
            // starts after its name.
            Some(0) => {
                src.advance(CONTENT_LENGTH.len());
                Some(Event::BadHeader(reason))
            }
            Some(start) => {
                src.advance(start);
                Some(Event::Garbage(start))
            }
            None => {
                // Keep what may be the start of a header name split across reads.
                let skip = src.len().saturating_sub(CONTENT_LENGTH.len() - 1);
                if skip == 0 {
                    return None;
                }
                src.advance(skip);
                Some(Event::Garbage(skip))
            }
        }
    }

    /// [`FrameDecoder::decode`] once the input has ended: what is left is reported.
    pub fn decode_eof(&mut self, src: &mut BytesMut) -> Option<Event> {
        if let Some(event) = self.decode(src) {
            return Some(event);
        }
        if src.is_empty() {
            return None;
        }
        let event = match self.body_len.take() {
            Some(len) => Event::Truncated {
                missing: len - src.len(),
            },
            None => Event::Garbage(src.len()),
        };
        src.clear();
        Some(event)
    }
}

/// Reads events from `input` as they arrive; after the last, `None`.
pub struct FrameReader<R> {
    input: R,
    buf: BytesMut,
    decoder: FrameDecoder,
    ended: bool,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub fn new(input: R) -> Self {
        Self {
            input,
            buf: BytesMut::with_capacity(64 << 10),
            decoder: FrameDecoder::default(),
            ended: false,
        }
    }

    pub async fn next(&mut self) -> Option<Event> {
        loop {
            if self.ended {
                return self.decoder.decode_eof(&mut self.buf);
            }
            if let Some(event) = self.decoder.decode(&mut self.buf) {
                return Some(event);
            }
            match self.input.read_buf(&mut self.buf).await {
                Ok(0) => self.ended = true,
                Ok(_) => {}
                Err(err) => {
                    tracing::error!("reading the client's messages: {err}");
                    self.ended = true;
                }
            }
        }
    }
}

/// Where the next `Content-Length` header starts (header names are case-insensitive).
fn find_header(src: &[u8]) -> Option<usize> {
    let first = |name: &[u8]| memmem::find(src, name);
    [first(CONTENT_LENGTH), first(b"content-length")]
        .into_iter()
        .flatten()
        .min()
        .or_else(|| {
            // Any other spelling: rare enough for a slow scan.
            src.windows(CONTENT_LENGTH.len())
                .position(|w| w.eq_ignore_ascii_case(CONTENT_LENGTH))
        })
}

fn body_len(headers: &[httparse::Header]) -> Result<usize, String> {
    let header = headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("content-length"))
        .ok_or("no Content-Length header")?;
    let value = std::str::from_utf8(header.value)
        .ok()
        .map(str::trim)
        .unwrap_or_default();
    match value.parse::<usize>() {
        Ok(len) if len <= MAX_BODY_BYTES => Ok(len),
        Ok(len) => Err(format!(
            "Content-Length {len} is over the limit of {MAX_BODY_BYTES} bytes"
        )),
        Err(_) => Err(format!(
            "Content-Length `{}` is not a number",
            String::from_utf8_lossy(header.value)
        )),
    }
}

/// Where whole frames are written, by more than one task.
pub type Output<W> = std::sync::Arc<Mutex<W>>;

/// Writes one framed body to `output`; false when it cannot be written (the client is gone).
pub async fn send<W: AsyncWrite + Unpin>(output: &Mutex<W>, body: &[u8]) -> bool {
    let mut output = output.lock().await;
    let written = output.write_all(&frame(body)).await;
    written.is_ok() && output.flush().await.is_ok()
}

/// Passes the client's well-formed messages from `input` to the server's transport, answers
/// the rest on `output` itself, and closes `server` when the input ends.
pub async fn forward_input<R, S, W>(input: R, mut server: S, output: Output<W>)
where
    R: AsyncRead + Unpin,
    S: AsyncWrite + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = FrameReader::new(input);
    while let Some(event) = reader.next().await {
        match event {
            Event::Body(body) => match check_body(&body) {
                Ok(()) => {
                    let framed = frame(&body);
                    if server.write_all(&framed).await.is_err() {
                        // The server has stopped reading (after `exit`).
                        return;
                    }
                }
                Err(response) => {
                    tracing::warn!("answered a bad message: {}", response["error"]["message"]);
                    send(&output, response.to_string().as_bytes()).await;
                }
            },
            Event::BadHeader(reason) => {
                tracing::warn!("skipped a bad header: {reason}");
                send(&output, header_error(&reason).to_string().as_bytes()).await;
            }
            Event::Garbage(bytes) => {
                tracing::warn!("skipped {bytes} bytes outside any message");
            }
            Event::Truncated { missing } => {
                tracing::warn!("the input ended {missing} bytes before the end of a message");
            }
        }
    }
    let _ = server.shutdown().await;
}

/// Copies the server transport's frames from `server` to `output` whole, so that answers written
/// by [`forward_input`] never land inside one.
pub async fn relay_output<S, W>(server: S, output: Output<W>)
where
    S: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = FrameReader::new(server);
    while let Some(event) = reader.next().await {
        if let Event::Body(body) = event
            && !send(&output, &body).await
        {
            return;
        }
    }
}

/// A message tower-lsp-server's transport reads without stopping: the same shapes it decodes.
#[derive(Deserialize)]
#[serde(untagged)]
enum Message {
    #[allow(dead_code)]
    Response(Response),
    #[allow(dead_code)]
    Request(Request),
}

/// `Ok` for a body to pass on; else the error response to send back.
pub fn check_body(body: &[u8]) -> Result<(), Value> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(err) => return Err(error_response(-32700, "Parse error", &err, Value::Null)),
    };
    match Message::deserialize(&value) {
        Ok(_) => Ok(()),
        Err(err) => {
            let id = match value.get("id") {
                Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
                _ => Value::Null,
            };
            Err(error_response(-32600, "Invalid request", &err, id))
        }
    }
}

/// A parse error for a header that could not be read.
pub fn header_error(reason: &str) -> Value {
    error_response(-32700, "Parse error", &reason, Value::Null)
}

fn error_response(code: i64, what: &str, detail: &dyn std::fmt::Display, id: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "error": {"code": code, "message": format!("{what}: {detail}")},
        "id": id,
    })
}

/// A body with its header, ready for the wire.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event of `input` fed in pieces of `chunk` bytes, as reads deliver it.
    fn events(input: &[u8], chunk: usize) -> Vec<Event> {
        let mut decoder = FrameDecoder::default();
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for piece in input.chunks(chunk.max(1)) {
            buf.extend_from_slice(piece);
            while let Some(event) = decoder.decode(&mut buf) {
                out.push(event);
            }
        }
        while let Some(event) = decoder.decode_eof(&mut buf) {
            out.push(event);
        }
        out
    }

    fn body(text: &str) -> Event {
        Event::Body(Bytes::copy_from_slice(text.as_bytes()))
    }

    /// Consecutive garbage counts merged, since where reads split the input is not the point.
    fn merged(events: Vec<Event>) -> Vec<Event> {
        let mut out: Vec<Event> = Vec::new();
        for event in events {
            match (out.last_mut(), &event) {
                (Some(Event::Garbage(n)), Event::Garbage(m)) => *n += m,
                _ => out.push(event),
            }
        }
        out
    }

    #[test]
    fn frames_in_any_pieces() {
        let input = b"Content-Length: 2\r\n\r\n{}Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 4\r\n\r\nnull";
        for chunk in [1, 2, 3, 7, 1000] {
            let got = merged(events(input, chunk));
            assert_eq!(got, vec![body("{}"), body("null")], "chunk {chunk}");
        }
    }

    #[test]
    fn garbage_between_frames_is_skipped() {
        let input =
            b"hello\r\nContent-Length: 2\r\n\r\n{}\x00\xffjunkContent-Length: 2\r\n\r\n[]xyContent-Length: 1\r\n\r\n1";
        for chunk in [1, 5, 1000] {
            assert_eq!(
                merged(events(input, chunk)),
                vec![
                    Event::Garbage(7),
                    body("{}"),
                    Event::Garbage(6),
                    body("[]"),
                    Event::Garbage(2),
                    body("1")
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn bad_headers_are_reported_and_skipped() {
        for (header, reason) in [
            ("Content-Length: ten\r\n\r\n", "is not a number"),
            ("Content-Length: -1\r\n\r\n", "is not a number"),
            ("Content-Length: 99999999999999\r\n\r\n", "over the limit"),
            ("Content-Length 5\r\n\r\n", "malformed header"),
            ("Content-Type: text/plain\r\n\r\n{}", "no Content-Length"),
        ] {
            let input = format!("{header}Content-Length: 2\r\n\r\n{{}}");
            let got = merged(events(input.as_bytes(), 1000));
            match got.as_slice() {
                [Event::BadHeader(why), rest @ ..] => {
                    assert!(why.contains(reason), "{why}");
                    assert_eq!(rest.last(), Some(&body("{}")), "{got:?}");
                }
                _ => panic!("{header:?}: {got:?}"),
            }
        }
        let endless = format!("Content-Length: 2\r\n{}", "X-A: b\r\n".repeat(2000));
        assert!(matches!(
            events(endless.as_bytes(), 1000).first(),
            Some(Event::BadHeader(_))
        ));
    }

    #[test]
    fn the_input_ending_inside_a_frame_is_reported() {
        assert_eq!(
            events(b"Content-Length: 10\r\n\r\n{\"a\"", 3),
            vec![Event::Truncated { missing: 6 }]
        );
        assert_eq!(merged(events(b"Content-Len", 3)), vec![Event::Garbage(11)]);
        assert_eq!(events(b"", 3), vec![]);
    }

    #[test]
    fn bodies_are_checked_as_tower_lsp_reads_them() {
        assert!(check_body(br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#).is_ok());
        assert!(check_body(br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#).is_ok());
        assert!(check_body(br#"{"jsonrpc":"2.0","id":3,"result":null}"#).is_ok());
        let bad = check_body(b"{not json}").unwrap_err();
        assert_eq!(
            (bad["error"]["code"].clone(), bad["id"].clone()),
            (json!(-32700), Value::Null)
        );
        let invalid = check_body(br#"{"id":7,"method":"x"}"#).unwrap_err();
        assert_eq!(
            (invalid["error"]["code"].clone(), invalid["id"].clone()),
            (json!(-32600), json!(7))
        );
        assert_eq!(check_body(b"[1,2]").unwrap_err()["error"]["code"], -32600);
        assert_eq!(
            check_body(b"\xff\xfe").unwrap_err()["error"]["code"],
            -32700
        );
    }
}
