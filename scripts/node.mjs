#!/usr/bin/env node
//! `node scripts/node.mjs <node arguments>`: runs `node <node arguments>` on the pinned Node 24,
//! installed first when this machine's Node is older (scripts/pinned-node.mjs). package.json's
//! benches and proof runs start through it: `node scripts/node.mjs --import tsx bench/core.ts`.
import { runOnPinnedNode } from './pinned-node.mjs';

await runOnPinnedNode(process.argv.slice(2));
