//! The language server's message loop on any bytes: the framing layer and every handler the
//! bytes reach. The server must not panic or hang, and everything it writes must be framed
//! JSON-RPC, whatever it was sent.

#![no_main]

use std::time::Duration;

use dldoctor::server::framing::{Event, FrameReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    let input = std::io::Cursor::new(data.to_vec());
    let (output, from_server) = tokio::io::duplex(1 << 16);
    runtime.block_on(async {
        let written = tokio::spawn(async move {
            let mut reader = FrameReader::new(from_server);
            let mut events = Vec::new();
            while let Some(event) = reader.next().await {
                events.push(event);
            }
            events
        });
        let served = tokio::time::timeout(
            Duration::from_secs(10),
            dldoctor::server::serve(input, output),
        )
        .await;
        assert!(served.is_ok(), "the server did not end after its input did");
        let events = written.await.unwrap_or_default();
        for event in events {
            let Event::Body(body) = event else {
                panic!("the server wrote something that is not a frame: {event:?}");
            };
            let message: serde_json::Value =
                serde_json::from_slice(&body).expect("the server wrote a body that is not JSON");
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
        }
    });
    runtime.shutdown_timeout(Duration::from_millis(50));
});
