#!/usr/bin/env node
// The executable: everything lives in the bundle that `npm run build` (run by `npm ci`) writes to dist/.
import { runProcess } from '../dist/main.js';

await runProcess();
