//! A small LSP client for the tests: it starts the real `dldoctor lsp` binary (or, for the
//! benchmarks, a peer's server) and speaks JSON-RPC with Content-Length framing over its
//! stdin/stdout, as an editor does. Every wait is bounded, so a misbehaving server fails a test
//! instead of hanging it.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const WAIT: Duration = Duration::from_secs(20);

pub struct Lsp {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Notifications and server requests seen while waiting for something else.
    backlog: VecDeque<Value>,
    next_id: i64,
    /// What the client answers to `workspace/configuration` (the `dldoctor` section).
    pub configuration: Value,
    /// Every server-to-client request, in order (method names).
    pub server_requests: Vec<String>,
    stderr: Arc<Mutex<String>>,
}

impl Lsp {
    pub fn start() -> Self {
        Self::start_with_env(&[])
    }

    pub fn start_with_env(env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dldoctor"));
        command.arg("lsp").env_remove("DLDOCTOR_LSP_FAULT");
        for (k, v) in env {
            command.env(k, v);
        }
        Self::spawn(command)
    }

    /// Starts any language server speaking over stdio (the benchmarks also drive a peer's).
    pub fn spawn(mut command: Command) -> Self {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("start the language server");
        let stdout = child.stdout.take().expect("stdout");
        let stderr_pipe = child.stderr.take().expect("stderr");
        let (tx, incoming) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut reader = BufReader::new(stderr_pipe);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                sink.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            incoming,
            backlog: VecDeque::new(),
            next_id: 1,
            configuration: Value::Null,
            server_requests: Vec::new(),
            stderr,
        }
    }

    /// The server's process id (benchmarks read its peak memory from `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Whether the server's log shows `needle` within [`WAIT`] (it is read by another thread).
    pub fn stderr_shows(&self, needle: &str) -> bool {
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if self.stderr().contains(needle) {
                return true;
            }
            thread::sleep(Duration::from_millis(10));
        }
        false
    }

    fn send(&mut self, message: &Value) {
        let body = serde_json::to_string(message).unwrap();
        let stdin = self.stdin.as_mut().expect("stdin open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    }

    /// Writes `bytes` as they are, framed or not.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + WAIT;
        loop {
            let message = self.next_message(deadline).unwrap_or_else(|| {
                panic!(
                    "no answer to {method} within {WAIT:?}; stderr:\n{}",
                    self.stderr()
                )
            });
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            self.backlog.push_back(message);
        }
    }

    /// Sends a request and returns its `result`, failing the test on an error answer.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        if let Some(error) = response.get("error") {
            panic!("{method} failed: {error}");
        }
        response["result"].clone()
    }

    /// The next message from the server, answering its requests on the way.
    fn next_message(&mut self, deadline: Instant) -> Option<Value> {
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            let message = match self.incoming.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                    return None;
                }
            };
            if let (Some(id), Some(method)) = (message.get("id"), message.get("method")) {
                let method = method.as_str().unwrap_or_default().to_owned();
                let result = match method.as_str() {
                    "workspace/configuration" => json!([self.configuration.clone()]),
                    _ => Value::Null,
                };
                let id = id.clone();
                self.server_requests.push(method);
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
                continue;
            }
            return Some(message);
        }
    }

    /// Waits for a notification satisfying `accept` (looking at what arrived earlier first).
    pub fn wait_notification(&mut self, what: &str, accept: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&accept) {
            return self.backlog.remove(i).unwrap();
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let Some(message) = self.next_message(deadline) else {
                panic!("no {what} within {WAIT:?}; stderr:\n{}", self.stderr());
            };
            if accept(&message) {
                return message;
            }
            self.backlog.push_back(message);
        }
    }

    /// Waits until the server has sent a request of `method` (answered on the way).
    pub fn wait_server_request(&mut self, method: &str) {
        let deadline = Instant::now() + WAIT;
        // `next_message` answers requests on its way and waits on for a message, so it is
        // asked in short slices: the request awaited may come with nothing after it.
        while !self.server_requests.iter().any(|m| m == method) {
            let slice = (Instant::now() + Duration::from_millis(50)).min(deadline);
            match self.next_message(slice) {
                Some(message) => self.backlog.push_back(message),
                None if Instant::now() < deadline
                    || self.server_requests.iter().any(|m| m == method) => {}
                None => panic!(
                    "no {method} request within {WAIT:?}; got {:?}",
                    self.server_requests
                ),
            }
        }
    }

    /// Waits for `publishDiagnostics` of `uri` whose diagnostics satisfy `accept`; returns them.
    pub fn diagnostics_where(
        &mut self,
        uri: &str,
        accept: impl Fn(&[Value]) -> bool,
    ) -> Vec<Value> {
        let message = self.wait_notification(&format!("diagnostics for {uri}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && accept(
                    m["params"]["diagnostics"]
                        .as_array()
                        .map(Vec::as_slice)
                        .unwrap_or(&[]),
                )
        });
        message["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Waits for the diagnostics published for `version` of `uri`.
    pub fn diagnostics_for_version(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let message = self.wait_notification(&format!("diagnostics for {uri} v{version}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        message["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// No notification satisfying `accept` arrives within `quiet`.
    pub fn assert_no_notification(&mut self, quiet: Duration, accept: impl Fn(&Value) -> bool) {
        assert!(
            !self.backlog.iter().any(&accept),
            "unexpected: {:?}",
            self.backlog
        );
        let deadline = Instant::now() + quiet;
        while let Some(message) = self.next_message(deadline) {
            assert!(!accept(&message), "unexpected notification: {message}");
            self.backlog.push_back(message);
        }
    }

    pub fn drop_backlog(&mut self) {
        self.backlog.clear();
    }

    /// `initialize` + `initialized`; returns the server's capabilities.
    pub fn initialize(
        &mut self,
        capabilities: Value,
        options: Value,
        root: Option<&Path>,
    ) -> Value {
        let root_uri = root.map(file_uri);
        let folders = root_uri
            .as_ref()
            .map(|u| json!([{"uri": u, "name": "ws"}]))
            .unwrap_or(Value::Null);
        let result = self.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": root_uri,
                "workspaceFolders": folders,
                "capabilities": capabilities,
                "initializationOptions": options,
            }),
        );
        self.notify("initialized", json!({}));
        result["capabilities"].clone()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}),
        );
    }

    /// Sends `shutdown` then `exit`, and waits for the process to end.
    pub fn shutdown_and_exit(mut self) -> (ExitStatus, Duration) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let started = Instant::now();
        let status = self.wait_exit();
        (status, started.elapsed())
    }

    /// Closes stdin, as an editor that dies does, and waits for the process to end.
    pub fn close_stdin(mut self) -> (ExitStatus, Duration) {
        self.stdin = None;
        let started = Instant::now();
        let status = self.wait_exit();
        (status, started.elapsed())
    }

    fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit within {WAIT:?}");
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0u8; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_str().expect("utf-8 path").bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(byte as char)
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

/// Client capabilities of an editor offering `encodings` (e.g. Neovim: utf-8 first; VS Code
/// offers none, which means utf-16).
pub fn capabilities(encodings: &[&str], pull: bool) -> Value {
    let mut caps = json!({
        "workspace": {"configuration": true, "didChangeConfiguration": {"dynamicRegistration": false}},
        "window": {"workDoneProgress": true},
        "textDocument": {
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true},
            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "source.fixAll"]}}},
            "hover": {"contentFormat": ["markdown", "plaintext"]}
        }
    });
    if !encodings.is_empty() {
        caps["general"] = json!({"positionEncodings": encodings});
    }
    if pull {
        caps["textDocument"]["diagnostic"] = json!({"dynamicRegistration": false});
    }
    caps
}

/// How the test (independently of the server) counts columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enc {
    Utf8,
    Utf16,
}

/// Line/character (in `enc`) -> byte offset, as an editor computes it.
pub fn offset_of(text: &str, line: u64, character: u64, enc: Enc) -> usize {
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0u64;
    for (i, ch) in text[start..end].char_indices() {
        if units >= character {
            return start + i;
        }
        units += match enc {
            Enc::Utf8 => ch.len_utf8() as u64,
            Enc::Utf16 => ch.len_utf16() as u64,
        };
    }
    end
}

/// Byte offset -> (line, character in `enc`).
pub fn position_of(text: &str, offset: usize, enc: Enc) -> (u64, u64) {
    let before = &text[..offset];
    let line = before.matches('\n').count() as u64;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = match enc {
        Enc::Utf8 => (offset - line_start) as u64,
        Enc::Utf16 => before[line_start..].encode_utf16().count() as u64,
    };
    (line, col)
}

pub fn lsp_range(text: &str, start: usize, end: usize, enc: Enc) -> Value {
    let (sl, sc) = position_of(text, start, enc);
    let (el, ec) = position_of(text, end, enc);
    json!({"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}})
}

/// Applies LSP text edits (all relative to `text`, as in one WorkspaceEdit) to a copy.
pub fn apply_text_edits(text: &str, edits: &[Value], enc: Enc) -> String {
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let r = &e["range"];
            let start = offset_of(
                text,
                r["start"]["line"].as_u64().unwrap(),
                r["start"]["character"].as_u64().unwrap(),
                enc,
            );
            let end = offset_of(
                text,
                r["end"]["line"].as_u64().unwrap(),
                r["end"]["character"].as_u64().unwrap(),
                enc,
            );
            (start, end, e["newText"].as_str().unwrap().to_owned())
        })
        .collect();
    spans.sort_by_key(|s| (s.0, s.1));
    let mut out = text.to_owned();
    for (start, end, new) in spans.into_iter().rev() {
        out.replace_range(start..end, &new);
    }
    out
}

/// The same edits as `didChange` content changes, applied one after another by the server:
/// last first, so the earlier ranges stay valid.
pub fn as_content_changes(edits: &[Value]) -> Value {
    let mut sorted = edits.to_vec();
    sorted.sort_by_key(|e| {
        (
            e["range"]["start"]["line"].as_u64().unwrap(),
            e["range"]["start"]["character"].as_u64().unwrap(),
        )
    });
    Value::Array(
        sorted
            .into_iter()
            .rev()
            .map(|e| json!({"range": e["range"], "text": e["newText"]}))
            .collect(),
    )
}

pub fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect()
}
