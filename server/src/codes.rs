//! The service's own codes, each defined once ([`ServerCode`]); the
//! application layer's and the libraries' come from their registries. The
//! tests check that no code is given twice across all layers and that
//! README.md lists each.

/// The service's errors (`request.*`, `server.*`, and the answers it refuses to build).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServerCode {
    /// `request.query`: a query string that does not parse, or a parameter given twice (400)
    RequestQuery,
    /// `request.unknown_parameter`: a query parameter the endpoint does not take (HTTP 400)
    RequestUnknownParameter,
    /// `request.bad_format`: a `from=`/`to=` value that is not a format (400)
    RequestBadFormat,
    /// `request.body`: the request body could not be read (400)
    RequestBody,
    /// `request.empty_body`: an empty upload (400)
    RequestEmptyBody,
    /// `request.multipart`: a multipart body that does not parse, or a field the endpoint does not take (400)
    RequestMultipart,
    /// `request.missing_file`: a multipart body without its `file` field (400)
    RequestMissingFile,
    /// `request.missing_archive`: an `archive/put` body without its `archive` field (400)
    RequestMissingArchive,
    /// `request.not_found`: no such endpoint (404)
    RequestNotFound,
    /// `request.method_not_allowed`: the endpoint does not take this method (405)
    RequestMethodNotAllowed,
    /// `request.timeout`: the body did not arrive within `--timeout` (408)
    RequestTimeout,
    /// `request.too_slow`: the body arrived slower than `--min-rate` (408)
    RequestTooSlow,
    /// `request.too_large`: the body is over `--max-body` (413)
    RequestTooLarge,
    /// `archive.no_models`: an archive holds no model to convert (422)
    ArchiveNoModels,
    /// `output.too_large`: the answer would be over the 4 GiB a zip without zip64 holds, or over `/v1/archive/convert`'s bound on its zip (422)
    OutputTooLarge,
    /// `server.busy`: every job slot is busy, or the bodies and answers held fill `--max-buffered` (503)
    ServerBusy,
    /// `server.timeout`: the work ran past `--timeout` (503)
    ServerTimeout,
    /// `server.shutting_down`: the service is shutting down (503)
    ServerShuttingDown,
    /// `server.too_many_connections`: a connection over `--max-connections` (503)
    ServerTooManyConnections,
}

impl ServerCode {
    /// Every code, for documentation and tests.
    pub const ALL: &'static [ServerCode] = &[
        ServerCode::RequestQuery,
        ServerCode::RequestUnknownParameter,
        ServerCode::RequestBadFormat,
        ServerCode::RequestBody,
        ServerCode::RequestEmptyBody,
        ServerCode::RequestMultipart,
        ServerCode::RequestMissingFile,
        ServerCode::RequestMissingArchive,
        ServerCode::RequestNotFound,
        ServerCode::RequestMethodNotAllowed,
        ServerCode::RequestTimeout,
        ServerCode::RequestTooSlow,
        ServerCode::RequestTooLarge,
        ServerCode::ArchiveNoModels,
        ServerCode::OutputTooLarge,
        ServerCode::ServerBusy,
        ServerCode::ServerTimeout,
        ServerCode::ServerShuttingDown,
        ServerCode::ServerTooManyConnections,
    ];

    /// The stable machine-readable code.
    pub const fn code(self) -> &'static str {
        match self {
            ServerCode::RequestQuery => "request.query",
            ServerCode::RequestUnknownParameter => "request.unknown_parameter",
            ServerCode::RequestBadFormat => "request.bad_format",
            ServerCode::RequestBody => "request.body",
            ServerCode::RequestEmptyBody => "request.empty_body",
            ServerCode::RequestMultipart => "request.multipart",
            ServerCode::RequestMissingFile => "request.missing_file",
            ServerCode::RequestMissingArchive => "request.missing_archive",
            ServerCode::RequestNotFound => "request.not_found",
            ServerCode::RequestMethodNotAllowed => "request.method_not_allowed",
            ServerCode::RequestTimeout => "request.timeout",
            ServerCode::RequestTooSlow => "request.too_slow",
            ServerCode::RequestTooLarge => "request.too_large",
            ServerCode::ArchiveNoModels => "archive.no_models",
            ServerCode::OutputTooLarge => "output.too_large",
            ServerCode::ServerBusy => "server.busy",
            ServerCode::ServerTimeout => "server.timeout",
            ServerCode::ServerShuttingDown => "server.shutting_down",
            ServerCode::ServerTooManyConnections => "server.too_many_connections",
        }
    }
}

impl mshconv_app::CodeName for ServerCode {
    fn code(self) -> &'static str {
        ServerCode::code(self)
    }
}

#[cfg(test)]
mod tests;
