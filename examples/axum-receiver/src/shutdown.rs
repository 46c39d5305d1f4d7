//! The stop: at SIGINT or SIGTERM the server takes no new request, those under way are
//! answered (for at most `DRAIN_SECS`), then the merchant loop ends the payment under way and
//! gives the rest of its batch back. Nothing unanswered was acknowledged: a request cut at the
//! limit is retried by its sender.

use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long a stop waits for requests under way, then for the loop's payment under way.
const DRAIN_SECS: u64 = 20;

/// Serves `router` on `listener` until a stop signal; `stop` tells the loop (`loop_task`).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    stop: watch::Sender<bool>,
    loop_task: Option<JoinHandle<()>>,
) -> Result<(), String> {
    let mut stopped = stop.subscribe();
    let serving = axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            stop_signal().await;
            println!(
                "stopping: no new requests; those under way are answered (Ctrl-C or SIGTERM again stops at once)"
            );
            let _ = stop.send(true);
            // A second signal: at once. A request cut then was never answered, so its sender
            // retries it; a lease the loop held ends on its own.
            tokio::spawn(async {
                stop_signal().await;
                eprintln!("stopping at once");
                std::process::exit(130);
            });
        })
        .into_future();
    // A stalled client would hold the stop for ever.
    let drained = async move {
        let _ = stopped.wait_for(|stop| *stop).await;
        tokio::time::sleep(Duration::from_secs(DRAIN_SECS)).await;
    };
    tokio::select! {
        result = serving => result.map_err(|e| e.to_string())?,
        () = drained => eprintln!("stopping: requests still open after {DRAIN_SECS} s are cut (their senders retry)"),
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
