# mshconv-server: the HTTP service (README.md, "HTTP service").
#   docker build -t mshconv-server .
#   docker run --rm -p 8080:8080 --memory 1g mshconv-server
# The memory limit: about 20 MiB idle + --max-buffered + --max-jobs x
# (64 MiB + 3 x --max-body) + 192 KiB per connection (+ a --game-dir's
# libraries): under 1 GiB with the defaults on two CPUs (README.md,
# "Container image"; docs/ROBUSTNESS.md).

# Build stage: the workspace's manifests and members (every member must be
# present for Cargo to load the workspace), only the service built.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY crates crates
COPY fixtures fixtures
COPY server server
RUN cargo build --release --locked -p mshconv-server \
 && install -D -m 0755 target/release/mshconv-server /out/mshconv-server

# Runtime stage: a small Debian, a non-root user, the binary alone.
FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin mshconv
COPY --from=build /out/mshconv-server /usr/local/bin/mshconv-server
USER 10001:10001
ENV MSHCONV_ADDR=0.0.0.0:8080 \
    RUST_LOG=info
EXPOSE 8080
# The binary asks its own /healthz (0.0.0.0 means 127.0.0.1): no curl needed.
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/mshconv-server", "--healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/mshconv-server"]
