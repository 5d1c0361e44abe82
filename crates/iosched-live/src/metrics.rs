//! The optional Prometheus endpoint of a running engine: `GET /metrics` on a loopback address answers with the
//! engine's flows in the text exposition format (see `iosched_report::prometheus`).
//!
//! Only loopback addresses are accepted: the endpoint has no authentication, and what it shows (process names and
//! what they read and write) is the mounting user's business. Each scrape asks the engine for a snapshot through
//! the same channel as the control socket, so it costs the engine one pass over its flows.

use crate::control_socket::ask_engine;
use iosched_report::prometheus;
use iosched_sim::{ControlMessage, ControlReply, ControlRequest};
use std::net::SocketAddr;
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::thread::JoinHandle;
use tiny_http::{Header, Method, Response, Server};

pub struct MetricsServer {
    server: Arc<Server>,
    addr: SocketAddr,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Listen on `addr` (loopback only; port 0 picks a free port) and answer scrapes from `engine`'s snapshots.
    pub fn start(addr: SocketAddr, engine: Sender<ControlMessage>) -> Result<MetricsServer, String> {
        check_loopback(addr)?;
        let server = Arc::new(Server::http(addr).map_err(|e| format!("cannot serve metrics on {addr}: {e}"))?);
        let addr = server.server_addr().to_ip().unwrap_or(addr);
        let thread = {
            let server = server.clone();
            std::thread::Builder::new()
                .name("iosched-metrics".into())
                .spawn(move || serve(&server, &engine))
                .map_err(|e| format!("cannot start the metrics thread: {e}"))?
        };
        Ok(MetricsServer { server, addr, thread: Some(thread) })
    }

    /// The address it listens on (with the port chosen, if 0 was asked).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The endpoint is for this machine only.
pub fn check_loopback(addr: SocketAddr) -> Result<(), String> {
    if addr.ip().is_loopback() {
        Ok(())
    } else {
        Err(format!(
            "--metrics {addr}: expected a loopback address such as 127.0.0.1:9464 or [::1]:9464 (the endpoint has \
             no authentication)"
        ))
    }
}

fn serve(server: &Server, engine: &Sender<ControlMessage>) {
    for request in server.incoming_requests() {
        let path = request.url().split('?').next().unwrap_or("");
        let (status, content_type, body) = match (request.method(), path) {
            (Method::Get | Method::Head, "/metrics") => match snapshot(engine) {
                Ok(text) => (200, prometheus::CONTENT_TYPE, text),
                Err(e) => (503, "text/plain; charset=utf-8", format!("{e}\n")),
            },
            (Method::Get | Method::Head, "/") => {
                (200, "text/plain; charset=utf-8", "iosched: the metrics are at /metrics\n".to_string())
            }
            (Method::Get | Method::Head, _) => (404, "text/plain; charset=utf-8", "not found: try /metrics\n".into()),
            _ => (405, "text/plain; charset=utf-8", "only GET and HEAD are served\n".into()),
        };
        let header = Header::from_bytes("Content-Type", content_type).expect("a valid header");
        // A client that went away loses its own answer only.
        let _ = request.respond(Response::from_string(body).with_status_code(status).with_header(header));
    }
}

fn snapshot(engine: &Sender<ControlMessage>) -> Result<String, String> {
    match ask_engine(engine, ControlRequest::Flows)? {
        ControlReply::Flows(snapshot) => Ok(prometheus::render(&snapshot)),
        ControlReply::Error(e) => Err(e),
        _ => Err("the engine answered something else".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iosched_core::request::IoClass;
    use iosched_core::snapshot::{DirectionCounts, FlowSnapshot, FlowsSnapshot};
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::sync::mpsc::channel;

    fn get(addr: SocketAddr, path: &str) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn a_scrape_gets_the_engines_snapshot() {
        let (engine, requests) = channel::<ControlMessage>();
        // A stand-in engine that answers two snapshots, then ends.
        let answering = std::thread::spawn(move || {
            for bytes in [4096u64, 8192] {
                let message = requests.recv().unwrap();
                assert_eq!(message.request, ControlRequest::Flows);
                let flow = FlowSnapshot {
                    flow: 0,
                    name: "pid 1 (cat)".into(),
                    class: IoClass::Be,
                    level: 4,
                    reads: DirectionCounts { ios: bytes / 4096, bytes, errors: 0, latency_sum_ns: 1000 },
                    writes: DirectionCounts::default(),
                    trims: DirectionCounts::default(),
                    flushes: DirectionCounts::default(),
                    queued: 0,
                    in_flight: 1,
                    first_ns: None,
                };
                let snapshot = FlowsSnapshot {
                    policy: "noop".into(),
                    device: "test".into(),
                    elapsed_ns: 1,
                    policy_switches: 0,
                    flows: vec![flow],
                };
                message.reply.send(ControlReply::Flows(Box::new(snapshot))).unwrap();
            }
        });
        let server = MetricsServer::start("127.0.0.1:0".parse().unwrap(), engine).unwrap();
        assert_ne!(server.addr().port(), 0);
        let series = r#"iosched_flow_bytes_total{flow="0",name="pid 1 (cat)",class="be",level="4",direction="read"}"#;
        let first = get(server.addr(), "/metrics");
        assert!(first.starts_with("HTTP/1.1 200") || first.starts_with("HTTP/1.0 200"), "{first}");
        assert!(first.contains("text/plain; version=0.0.4"), "{first}");
        assert!(first.contains(&format!("{series} 4096")), "{first}");
        assert!(get(server.addr(), "/metrics").contains(&format!("{series} 8192")));
        answering.join().unwrap();
        let gone = get(server.addr(), "/metrics");
        assert!(gone.contains(" 503 ") && gone.contains("the run has ended"), "{gone}");
        assert!(get(server.addr(), "/nothing").contains(" 404 "));
    }

    #[test]
    fn only_loopback_addresses_are_served() {
        let (engine, _requests) = channel();
        let refused = MetricsServer::start("0.0.0.0:0".parse().unwrap(), engine);
        let e = refused.err().expect("a wildcard address is refused");
        assert!(e.contains("loopback"), "{e}");
        assert!(check_loopback("[::1]:9464".parse().unwrap()).is_ok());
    }
}
