#!/usr/bin/env node
// The reference of bench/sites.bench.mjs: a bare Express app with nothing but express.static on the sites folder —
// what serving a published site costs in Node with Express's own static server, without Atrium's pipeline (request
// ids, logs, metrics, security headers). One process.
//
//   ROOT=/path/to/sites PORT=… node bench/support/bare-static-server.mjs
//   GET /<namespace>/<directory>/<file>  → the file (ETag, Last-Modified, ranges, index.html for folders)
import express from 'express';

const app = express();
app.use(express.static(process.env.ROOT, { dotfiles: 'ignore', index: ['index.html'] }));
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
