//! Serving, and the stop. Each connection is served by hyper's HTTP/1 with a timer, so a
//! client's request headers must arrive within the body's timeout, and a keep-alive
//! connection left idle that long is closed (`axum::serve` sets no timer: a client that sends
//! half a header, or nothing, holds its connection and its socket for ever).
//!
//! At SIGINT or SIGTERM the server takes no new request, those under way are answered (for at
//! most `DRAIN_SECS`), then the merchant loop ends the payment under way and gives the rest of
//! its batch back. Nothing unanswered was acknowledged: a request cut at the limit is retried
//! by its sender.

use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long a stop waits for requests under way, then for the loop's payment under way.
const DRAIN_SECS: u64 = 20;

/// Serves `router` on `listener` until a stop signal; `stop` tells the loop (`loop_task`).
/// `header_timeout` bounds a request's headers and an idle connection's wait for the next.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    header_timeout: Duration,
    stop: watch::Sender<bool>,
    loop_task: Option<JoinHandle<()>>,
) -> Result<(), String> {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let connections = GracefulShutdown::new();
    let signal = stop_signal();
    tokio::pin!(signal);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let service = TowerToHyperService::new(router.clone());
                    let connection = http.serve_connection(TokioIo::new(stream), service);
                    let connection = connections.watch(connection);
                    tokio::spawn(async move {
                        // A client gone, a header too slow or malformed: that connection's
                        // end, nothing to answer.
                        let _ = connection.await;
                    });
                }
                // Out of file descriptors, or a connection reset before it was taken: the
                // listener is still good; wait a moment rather than spin.
                Err(e) => {
                    eprintln!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            () = &mut signal => break,
        }
    }
    drop(listener);
    println!(
        "stopping: no new requests; those under way are answered (Ctrl-C or SIGTERM again stops at once)"
    );
    let _ = stop.send(true);
    // A second signal: at once. A request cut then was never answered, so its sender retries
    // it; a lease the loop held ends on its own.
    tokio::spawn(async {
        stop_signal().await;
        eprintln!("stopping at once");
        std::process::exit(130);
    });
    // A stalled client would hold the stop for ever.
    if tokio::time::timeout(Duration::from_secs(DRAIN_SECS), connections.shutdown())
        .await
        .is_err()
    {
        eprintln!(
            "stopping: requests still open after {DRAIN_SECS} s are cut (their senders retry)"
        );
    }
    if let Some(task) = loop_task
        && tokio::time::timeout(Duration::from_secs(DRAIN_SECS), task)
            .await
            .is_err()
    {
        eprintln!(
            "stopping: the merchant loop's payment under way did not end in {DRAIN_SECS} s; its lease ends on its own"
        );
    }
    Ok(())
}

/// Ctrl-C, or SIGTERM (docker stop, Kubernetes, systemd).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
