/*
 * Preloaded (NODE_OPTIONS=--import) into every node.exe of the Windows job under Wine, never on
 * a real Windows machine. Wine 8 rejects TCP keep-alive's interval and count options
 * (TCP_KEEPINTVL, TCP_KEEPCNT), and libuv applies a keep-alive asked for before the connection is
 * made when it connects, so the connect itself fails (UNKNOWN): every request undici makes (it
 * asks for keep-alive on each new socket) would fail. Asked for before the connection, keep-alive
 * is applied once connected instead, where Node ignores the option's failure as on any socket.
 */
import net from 'node:net';

const setKeepAlive = net.Socket.prototype.setKeepAlive;
net.Socket.prototype.setKeepAlive = function (enable, initialDelay) {
  if (this.connecting || !this._handle) {
    this.once('connect', () => setKeepAlive.call(this, enable, initialDelay));
    return this;
  }
  return setKeepAlive.call(this, enable, initialDelay);
};
