// What a heart-rate strap sends over the Bluetooth Heart Rate Service (0x180D), read from the DataViews
// Web Bluetooth gives, and which of its readings a sample may carry. No page: runs in a browser and in
// Node (tests/integration/test_heart_rate_js.py).
//
// Heart Rate Measurement (0x2A37), as the Bluetooth SIG's characteristic definition lays it out: a flags
// byte, then the value, uint8 (flags bit 0 clear) or uint16 little-endian (bit 0 set), in bpm. Bits 1-2
// are the sensor contact status: 2 = the strap can tell and has no skin contact, 3 = it has contact,
// 0 or 1 = it cannot tell. Bit 3 announces Energy Expended (uint16, kJ) and bit 4 RR intervals (uint16s,
// 1/1024 s) after the value: neither is read.

// The contract's range for a sample's heartRate (v1.2): a reading outside it is not sent (the API would
// refuse the whole batch it rides in).
export const HEART_RATE_MIN = 30;
export const HEART_RATE_MAX = 250;

// {bpm, contact}: contact false when the strap says it has no skin contact, true when it says it has,
// null when it cannot tell; null for a value shorter than its flags announce.
export function parseHeartRateMeasurement(view) {
  if (view.byteLength < 2) return null;
  const flags = view.getUint8(0);
  const wide = Boolean(flags & 0b1);
  if (view.byteLength < (wide ? 3 : 2)) return null;
  const bpm = wide ? view.getUint16(1, true) : view.getUint8(1);
  const status = (flags >> 1) & 0b11;
  return { bpm, contact: status === 3 ? true : status === 2 ? false : null };
}

// The bpm a sample may carry from a reading, or null: none without skin contact (the strap then sends
// 0, or a number from the air), none outside the contract's range.
export function usableBpm(reading) {
  if (!reading || reading.contact === false) return null;
  const { bpm } = reading;
  return Number.isInteger(bpm) && bpm >= HEART_RATE_MIN && bpm <= HEART_RATE_MAX ? bpm : null;
}
