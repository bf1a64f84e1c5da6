//! A small JSON-RPC client that starts the real `tirc` binary (`tirc lsp`) and speaks
//! the Language Server Protocol to it over stdio, for the integration tests.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long any single answer may take before the test fails (generous: CI
/// machines are slow and shared).
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// A running server and the messages it sent that no one has read yet.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    /// Notifications received while waiting for something else.
    pub notifications: Vec<Value>,
    next_id: i64,
}

/// The repository root (for `examples/` and `tests/`).
pub fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// Reads a file of the repository.
pub fn read(path: &str) -> String {
    std::fs::read_to_string(repository_root().join(path))
        .unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// A `file://` URI for a name.
pub fn uri(name: &str) -> String {
    format!("file:///work/{name}")
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
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Server {
    /// Starts the server and completes the initialize handshake.
    pub fn start() -> Server {
        Server::start_with(json!({}))
    }

    /// Starts the server with `initializationOptions`.
    pub fn start_with(options: Value) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tirc"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the tirc binary starts");
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            stdin: Some(stdin),
            messages,
            notifications: Vec::new(),
            next_id: 1,
        };
        let result = server.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": {},
                "initializationOptions": options,
            }),
        );
        assert!(result.get("capabilities").is_some(), "{result}");
        server.notify("initialized", json!({}));
        server
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let stdin = self.stdin.as_mut().expect("the server's input is open");
        stdin
            .write_all(frame.as_bytes())
            .expect("the server reads its input");
        stdin.flush().expect("the server reads its input");
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(message);
    }

    fn next_message(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.messages.recv_timeout(left) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => panic!("the server did not answer in time"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server exited"),
        }
    }

    /// Sends a request and returns its full response (`result` or `error`).
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(message);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let message = self.next_message(deadline);
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            if message.get("id").is_some() && message.get("method").is_some() {
                // A request from the server (none expected): answer it empty.
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": null});
                self.send(reply);
                continue;
            }
            self.notifications.push(message);
        }
    }

    /// Sends a request and returns its result, failing the test on an error.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// Opens a document.
    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "tir", "version": 1, "text": text}}),
        );
    }

    /// Replaces a document's whole text.
    pub fn replace(&mut self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    /// Every diagnostics publication for `uri` received so far, in order, removed from the queue.
    pub fn take_publications(&mut self, uri: &str) -> Vec<Value> {
        let (mine, rest): (Vec<Value>, Vec<Value>) = std::mem::take(&mut self.notifications)
            .into_iter()
            .partition(|n| {
                n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri
            });
        self.notifications = rest;
        mine.into_iter().map(|n| n["params"].clone()).collect()
    }

    /// Waits for the diagnostics of `version` of `uri`; returns them and
    /// every publication for the document received before them.
    pub fn diagnostics_for(&mut self, uri: &str, version: i64) -> (Vec<Value>, Vec<Value>) {
        let deadline = Instant::now() + TIMEOUT;
        let mut seen = self.take_publications(uri);
        loop {
            if let Some(found) = seen.iter().find(|p| p["version"] == json!(version)) {
                let diagnostics = found["diagnostics"].as_array().cloned().unwrap_or_default();
                return (diagnostics, seen);
            }
            let message = self.next_message(deadline);
            if message["method"] == "textDocument/publishDiagnostics"
                && message["params"]["uri"] == uri
            {
                seen.push(message["params"].clone());
            } else {
                self.notifications.push(message);
            }
        }
    }

    /// `textDocument/hover` at a position.
    pub fn hover(&mut self, uri: &str, line: u32, character: u32) -> Value {
        self.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
    }

    /// Shuts the server down and waits for it to exit.
    pub fn shutdown(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
    }
}

impl Server {
    /// Waits up to `limit` for the server process to end, with its input
    /// still open; its exit status, or `None` if it is still running.
    pub fn wait_for_exit(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status.code().unwrap_or(-1));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Closes the server's standard input, as an editor that quits does.
    pub fn close_input(&mut self) {
        self.stdin = None;
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The (line, UTF-16 character) of the `nth` (0-based) occurrence of `needle` in `text`, plus `extra` characters.
pub fn position_of(text: &str, needle: &str, nth: usize, extra: usize) -> (u32, u32) {
    let offset = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` occurs {} times", text.matches(needle).count()))
        .0
        + extra;
    let line_start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line = text[..offset].matches('\n').count() as u32;
    let character: usize = text[line_start..offset].chars().map(char::len_utf16).sum();
    (line, character as u32)
}

/// The hover's Markdown text.
pub fn hover_text(hover: &Value) -> String {
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The byte offset of a protocol position (UTF-16 columns).
pub fn offset_of(text: &str, line: u64, character: u64) -> usize {
    let mut line_start = 0;
    for _ in 0..line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let mut units = 0u64;
    for (index, c) in text[line_start..].char_indices() {
        if units >= character || c == '\n' {
            return line_start + index;
        }
        units += c.len_utf16() as u64;
    }
    text.len()
}

/// Applies protocol text edits to a text.
pub fn apply_edits(text: &str, edits: &[Value]) -> String {
    let mut resolved: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|edit| {
            let range = &edit["range"];
            let start = offset_of(
                text,
                range["start"]["line"].as_u64().unwrap_or(0),
                range["start"]["character"].as_u64().unwrap_or(0),
            );
            let end = offset_of(
                text,
                range["end"]["line"].as_u64().unwrap_or(0),
                range["end"]["character"].as_u64().unwrap_or(0),
            );
            (
                start,
                end,
                edit["newText"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    resolved.sort_by_key(|(start, end, _)| (*start, *end));
    let mut out = text.to_string();
    for (start, end, new_text) in resolved.into_iter().rev() {
        out.replace_range(start..end, &new_text);
    }
    out
}
