//! The server ends as the protocol says, also while the editor keeps its
//! input open: 0 after `shutdown` and `exit`, 1 after `exit` alone, and it
//! ends when its input closes.

use crate::support::Server;
use serde_json::Value;
use std::time::Duration;

/// Long enough for a loaded machine; the server answers in milliseconds.
const LIMIT: Duration = Duration::from_secs(10);

#[test]
fn shutdown_then_exit_ends_with_status_zero_while_input_stays_open() {
    let mut server = Server::start();
    let result = server.request("shutdown", Value::Null);
    assert!(result.is_null(), "{result}");
    server.notify("exit", Value::Null);
    assert_eq!(server.wait_for_exit(LIMIT), Some(0));
}

#[test]
fn exit_without_shutdown_ends_with_status_one() {
    let mut server = Server::start();
    server.notify("exit", Value::Null);
    assert_eq!(server.wait_for_exit(LIMIT), Some(1));
}

#[test]
fn closed_input_ends_the_server() {
    let mut server = Server::start();
    server.request("shutdown", Value::Null);
    server.close_input();
    assert_eq!(server.wait_for_exit(LIMIT), Some(0));

    let mut server = Server::start();
    server.close_input();
    assert_eq!(server.wait_for_exit(LIMIT), Some(1));
}
