/** Import cost, ky: a process that only imports ky (compared with empty.js). */
import ky from 'ky';

if (typeof ky !== 'function') throw new Error('no ky export');
