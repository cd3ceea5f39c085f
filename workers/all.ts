//! Every pool in one process: the laptop and test shape (`npm start`, `npm test`).
import { runPools } from './run.js';

await runPools(['core', 'cpu', 'network', 'browser']);
