//! The network pool worker, in its own process (one service per pool in production).
import { runPools } from './run.js';

await runPools(['network']);
