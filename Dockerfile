# syntax=docker/dockerfile:1
# Build stage: install everything, compile TypeScript.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-fund --no-audit
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies and the compiled app, run as the non-root `node` user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production DATA_DIR=/var/lib/atrium PORT=3000
# bubblewrap confines every POST /api/exec command (issue 12; prlimit and setpriv come with util-linux). As the non-root
# `node` user it needs unprivileged user namespaces, which Docker's default seccomp/AppArmor profiles and /proc masking
# block: docker-compose.yml and docs/exec-sandbox.md say what to set. Without it, exec answers 503 (fails closed).
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
RUN mkdir -p /var/lib/atrium && chown node:node /var/lib/atrium
USER node
VOLUME ["/var/lib/atrium"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s CMD node -e "fetch('http://127.0.0.1:3000/api/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Same V8 heap sizing as `npm start` (README: Memory).
CMD ["node", "--max-old-space-size=768", "--max-semi-space-size=16", "dist/src/main.js"]
