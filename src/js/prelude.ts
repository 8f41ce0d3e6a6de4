// The JavaScript evaluated once in every sandbox context before user code: mongod's JS types
// (ObjectId, NumberLong, NumberInt, NumberDecimal, Timestamp, BinData, MinKey, MaxKey,
// ISODate), a few of the helpers mongod's server-side scope has (Array.sum, isNumber, tojson,
// ...), and the marshalling between the host and the sandbox: values cross as JSON text with
// tagged objects ({$oid}, {$numberLong}, {$date}, ...; see marshal.ts for the host side), one
// string in and one string out per call. The source is data, not code of this process: it only
// ever runs inside QuickJS.

export const SANDBOX_PRELUDE = String.raw`
(function () {
  'use strict';
  var g = globalThis;
  function hide(o, k, v) { Object.defineProperty(o, k, { value: v, writable: true, configurable: true, enumerable: false }); }
  function def(name, v) { Object.defineProperty(g, name, { value: v, writable: true, configurable: true, enumerable: false }); }

  function ObjectId(hex) {
    if (!(this instanceof ObjectId)) return new ObjectId(hex);
    if (hex === undefined) {
      var s = '';
      var t = Math.floor(Date.now() / 1000).toString(16);
      while (t.length < 8) t = '0' + t;
      s = t;
      for (var i = 0; i < 16; i++) s += Math.floor(Math.random() * 16).toString(16);
      hex = s;
    }
    if (typeof hex !== 'string' || !/^[0-9a-fA-F]{24}$/.test(hex)) throw new Error('invalid object id: length');
    this.str = hex.toLowerCase();
  }
  ObjectId.prototype.toString = function () { return 'ObjectId("' + this.str + '")'; };
  ObjectId.prototype.tojson = ObjectId.prototype.toString;
  ObjectId.prototype.valueOf = function () { return this.str; };
  ObjectId.prototype.toHexString = function () { return this.str; };
  ObjectId.prototype.equals = function (o) { return o instanceof ObjectId && o.str === this.str; };
  ObjectId.prototype.getTimestamp = function () { return new Date(parseInt(this.str.slice(0, 8), 16) * 1000); };

  function NumberLong(v) {
    if (!(this instanceof NumberLong)) return new NumberLong(v);
    var s = v === undefined ? '0' : typeof v === 'string' ? v : String(Math.trunc(Number(v)));
    if (!/^-?[0-9]+$/.test(s)) throw new Error('could not convert "' + s + '" to NumberLong');
    hide(this, '__s', s);
    this.floatApprox = Number(s);
  }
  NumberLong.prototype.valueOf = function () { return this.floatApprox; };
  NumberLong.prototype.toNumber = NumberLong.prototype.valueOf;
  NumberLong.prototype.toString = function () { return 'NumberLong(' + (Number.isSafeInteger(this.floatApprox) ? this.__s : '"' + this.__s + '"') + ')'; };
  NumberLong.prototype.tojson = NumberLong.prototype.toString;
  NumberLong.prototype.equals = function (o) { return o instanceof NumberLong && o.__s === this.__s; };
  NumberLong.prototype.compare = function (o) { var a = BigInt(this.__s), b = BigInt(o instanceof NumberLong ? o.__s : String(Math.trunc(Number(o)))); return a < b ? -1 : a > b ? 1 : 0; };

  function NumberInt(v) {
    if (!(this instanceof NumberInt)) return new NumberInt(v);
    hide(this, '__v', Number(v === undefined ? 0 : v) | 0);
  }
  NumberInt.prototype.valueOf = function () { return this.__v; };
  NumberInt.prototype.toNumber = NumberInt.prototype.valueOf;
  NumberInt.prototype.toString = function () { return 'NumberInt(' + this.__v + ')'; };
  NumberInt.prototype.tojson = NumberInt.prototype.toString;
  NumberInt.prototype.toJSON = function () { return this.__v; };

  function NumberDecimal(v) {
    if (!(this instanceof NumberDecimal)) return new NumberDecimal(v);
    hide(this, '__s', v === undefined ? '0' : String(v));
  }
  NumberDecimal.prototype.toString = function () { return 'NumberDecimal("' + this.__s + '")'; };
  NumberDecimal.prototype.tojson = NumberDecimal.prototype.toString;
  NumberDecimal.prototype.valueOf = function () { return Number(this.__s); };

  function Timestamp(t, i) {
    if (!(this instanceof Timestamp)) return new Timestamp(t, i);
    this.t = t === undefined ? 0 : Number(t);
    this.i = i === undefined ? 0 : Number(i);
  }
  Timestamp.prototype.getTime = function () { return this.t; };
  Timestamp.prototype.getInc = function () { return this.i; };
  Timestamp.prototype.toString = function () { return 'Timestamp(' + this.t + ', ' + this.i + ')'; };
  Timestamp.prototype.tojson = Timestamp.prototype.toString;

  function BinData(type, base64) {
    if (!(this instanceof BinData)) return new BinData(type, base64);
    hide(this, '__t', Number(type));
    hide(this, '__b', String(base64));
  }
  BinData.prototype.base64 = function () { return this.__b; };
  BinData.prototype.subtype = function () { return this.__t; };
  BinData.prototype.length = function () { var b = this.__b, p = b.endsWith('==') ? 2 : b.endsWith('=') ? 1 : 0; return (b.length / 4) * 3 - p; };
  BinData.prototype.toString = function () { return 'BinData(' + this.__t + ',"' + this.__b + '")'; };
  BinData.prototype.tojson = BinData.prototype.toString;

  function Code(code) {
    if (!(this instanceof Code)) return new Code(code);
    this.code = String(code);
  }
  Code.prototype.toString = function () { return this.code; };

  var MinKey = Object.freeze(Object.create({ toString: function () { return '{ "$minKey" : 1 }'; }, tojson: function () { return '{ "$minKey" : 1 }'; } }));
  var MaxKey = Object.freeze(Object.create({ toString: function () { return '{ "$maxKey" : 1 }'; }, tojson: function () { return '{ "$maxKey" : 1 }'; } }));
  function ISODate(s) { return s === undefined ? new Date() : new Date(s); }

  def('ObjectId', ObjectId);
  def('NumberLong', NumberLong);
  def('NumberInt', NumberInt);
  def('NumberDecimal', NumberDecimal);
  def('Timestamp', Timestamp);
  def('BinData', BinData);
  def('Code', Code);
  def('MinKey', MinKey);
  def('MaxKey', MaxKey);
  def('ISODate', ISODate);

  function isNumber(x) { return typeof x === 'number'; }
  function isString(x) { return typeof x === 'string'; }
  function isObject(x) { return typeof x === 'object' && x !== null; }
  def('isNumber', isNumber);
  def('isString', isString);
  def('isObject', isObject);
  hide(Array, 'sum', function (a) { var s = 0; for (var i = 0; i < a.length; i++) s += a[i]; return s; });
  hide(Array, 'avg', function (a) { return a.length === 0 ? null : Array.sum(a) / a.length; });
  hide(Array, 'contains', function (a, x) { return a.indexOf(x) >= 0; });
  hide(Array, 'unique', function (a) { var out = []; for (var i = 0; i < a.length; i++) if (out.indexOf(a[i]) < 0) out.push(a[i]); return out; });

  function tojson(x) {
    if (x === undefined) return 'undefined';
    if (x === null) return 'null';
    if (typeof x === 'string') return JSON.stringify(x);
    if (typeof x !== 'object') return String(x);
    if (typeof x.tojson === 'function') return x.tojson();
    if (x instanceof Date) return 'ISODate("' + x.toISOString() + '")';
    if (Array.isArray(x)) return '[ ' + x.map(tojson).join(', ') + ' ]';
    var ks = Object.keys(x);
    if (ks.length === 0) return '{ }';
    return '{ ' + ks.map(function (k) { return JSON.stringify(k) + ' : ' + tojson(x[k]); }).join(', ') + ' }';
  }
  def('tojson', tojson);

  // ---- marshalling ----------------------------------------------------------------------
  function fromEntries(entries) {
    var o = {};
    for (var i = 0; i < entries.length; i++) Object.defineProperty(o, entries[i][0], { value: entries[i][1], writable: true, configurable: true, enumerable: true });
    return o;
  }
  function revive(key, v) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    var ks = Object.keys(v);
    if (ks.length === 0 || ks[0].charCodeAt(0) !== 36) return v;
    switch (ks[0]) {
      case '$doc': return fromEntries(v.$doc);
      case '$oid': return new ObjectId(v.$oid);
      case '$date': return new Date(v.$date);
      case '$numberLong': return new NumberLong(v.$numberLong);
      case '$numberInt': return new NumberInt(v.$numberInt);
      case '$numberDecimal': return new NumberDecimal(v.$numberDecimal);
      case '$numberDouble': return Number(v.$numberDouble);
      case '$timestamp': return new Timestamp(v.$timestamp.t, v.$timestamp.i);
      case '$binary': return new BinData(v.$binary.subType, v.$binary.base64);
      case '$regex': return new RegExp(v.$regex, v.$options);
      case '$code': return new Code(v.$code);
      case '$minKey': return MinKey;
      case '$maxKey': return MaxKey;
      case '$undefined': return undefined;
      default: return v;
    }
  }
  function decode(s) { return JSON.parse(s, revive); }

  var DEPTH_MAX = 150;
  function enc(v, depth) {
    if (depth > DEPTH_MAX) throw new RangeError('object too deep or circular');
    if (v === null) return 'null';
    switch (typeof v) {
      case 'undefined': return '{"$undefined":true}';
      case 'boolean': return v ? 'true' : 'false';
      case 'string': return JSON.stringify(v);
      case 'number': return Number.isFinite(v) ? (Object.is(v, -0) ? '{"$numberDouble":"-0"}' : JSON.stringify(v)) : '{"$numberDouble":"' + String(v) + '"}';
      case 'bigint': return '{"$numberLong":"' + String(v) + '"}';
      case 'function': return '{"$code":' + JSON.stringify(String(v)) + '}';
      case 'symbol': return JSON.stringify(String(v));
    }
    if (v instanceof ObjectId) return '{"$oid":"' + v.str + '"}';
    if (v instanceof NumberLong) return '{"$numberLong":"' + v.__s + '"}';
    if (v instanceof NumberInt) return '{"$numberInt":' + v.__v + '}';
    if (v instanceof NumberDecimal) return '{"$numberDecimal":' + JSON.stringify(v.__s) + '}';
    if (v instanceof Date) { var ms = v.getTime(); return '{"$date":' + (Number.isFinite(ms) ? ms : 0) + '}'; }
    if (v instanceof Timestamp) return '{"$timestamp":{"t":' + (v.t >>> 0) + ',"i":' + (v.i >>> 0) + '}}';
    if (v instanceof BinData) return '{"$binary":{"base64":' + JSON.stringify(v.__b) + ',"subType":' + v.__t + '}}';
    if (v instanceof RegExp) return '{"$regex":' + JSON.stringify(v.source) + ',"$options":' + JSON.stringify(v.flags) + '}';
    if (v instanceof Code) return '{"$code":' + JSON.stringify(v.code) + '}';
    if (v === MinKey) return '{"$minKey":1}';
    if (v === MaxKey) return '{"$maxKey":1}';
    if (v instanceof Number || v instanceof String || v instanceof Boolean) return enc(v.valueOf(), depth + 1);
    if (Array.isArray(v)) {
      var parts = [];
      for (var i = 0; i < v.length; i++) parts.push(enc(v[i], depth + 1));
      return '[' + parts.join(',') + ']';
    }
    var ks = Object.keys(v);
    var entries = [];
    for (var j = 0; j < ks.length; j++) entries.push('[' + JSON.stringify(ks[j]) + ',' + enc(v[ks[j]], depth + 1) + ']');
    return '{"$doc":[' + entries.join(',') + ']}';
  }
  function encode(v) { return enc(v, 0); }

  // ---- functions and calls --------------------------------------------------------------
  var fns = [];
  var emits = [];
  var emitCount = 0;
  function compile(src, asBody) {
    var f;
    if (asBody === 'expression') {
      try { f = Function('return ' + src); } catch (e) { if (!(e instanceof SyntaxError)) throw e; f = Function(src); }
    } else f = asBody ? Function(src) : (0, eval)('(' + src + '\n)');
    if (typeof f !== 'function') throw new TypeError('the code did not evaluate to a function');
    fns.push(f);
    return fns.length - 1;
  }
  function call(id, thisJson, argsJson, setObj) {
    var self = thisJson === '' ? undefined : decode(thisJson);
    if (setObj) g.obj = self;
    var args = decode(argsJson);
    return encode(fns[id].apply(self, args));
  }
  function emit(k, v) {
    if (arguments.length > 2) throw new Error('emit takes 2 args');
    emitCount++;
    emits.push([k, v]);
  }
  function takeEmits() {
    var out = encode(emits);
    emits = [];
    return out;
  }
  function setGlobal(name, json) { g[name] = decode(json); }
  def('emit', emit);
  return { compile: compile, call: call, takeEmits: takeEmits, setGlobal: setGlobal };
})()
`;
