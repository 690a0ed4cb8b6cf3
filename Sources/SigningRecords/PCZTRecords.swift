import Foundation
import KeySources
import WalletCore
import WalletFiles
import WalletKeys
import WalletRecords
import Zcash

/// sign-tx's Zcash records: `{"pczt":"<base64>"}` → a `pczt_summary` of what the seed's keys
/// verified (spends, where each output goes, the fee), then `{"type":"pczt","pczt":…}` with
/// the seed's signatures added. Proving and sending stay with the online wallet.
public enum PCZTRecords {
    /// Reads a PCZT from a record's "pczt" (base64) field.
    public static func pczt(_ record: JSONObject) throws -> PCZT {
        try parse(base64: record.string("pczt", expected: "a PCZT in base64"))
    }

    static func parse(base64 text: String) throws -> PCZT {
        // Line breaks and spaces a mail or a terminal put in are not part of it.
        guard let bytes = Base64.decode(utf8: text.utf8.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else {
            throw RecordError.invalidField(field: "pczt", reason: "not base64 (a PCZT in base64 starts UENaV)")
        }
        return try PCZT(parsing: bytes)
    }

    /// Whether a file's bytes are a PCZT: binary ("PCZT" first) or base64 of one ("UENaV").
    public static func isPCZT(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: Array("PCZT".utf8)) || bytes.starts(with: Array("UENaV".utf8))
    }

    /// A PCZT file as wallets write them: binary, or base64 text.
    public static func read(bytes: [UInt8]) throws -> PCZT {
        if bytes.starts(with: Array("PCZT".utf8)) { return try PCZT(parsing: bytes) }
        return try parse(base64: String(decoding: bytes, as: UTF8.self))
    }

    /// Writes the signed PCZT, binary, whole or not at all (AtomicFile), 0666 less the umask.
    public static func write(_ pczt: PCZT, file path: String) throws {
        let bytes = try pczt.serialized()
        do { try AtomicFile.write(bytes, to: path, mode: 0o666) } catch { throw CLIError.writeFailed(reason: error.reason) }
    }

    /// Signs one PCZT with `seed`: the review first (`confirm` gets its summary and may refuse
    /// by throwing), then the signatures. A fee above `maxFee` is refused before the summary.
    public static func sign(
        _ pczt: PCZT, record: JSONObject, seed: SecureBytes, maxFee: UInt64?, allowOtherSighash: Bool = false,
        confirm: (JSONObject) throws -> Void
    ) throws -> (record: JSONObject, pczt: PCZT) {
        var signed = pczt
        let done = try signed.sign(seed: seed, allowOtherSighash: allowOtherSighash) { report in
            if let maxFee, report.fee > maxFee {
                throw PCZTError.refused("its fee of \(report.fee) zatoshi is above --max-fee \(maxFee)")
            }
            try confirm(summary(report, pczt))
        }
        var out = record
        out["type"] = .string("pczt")
        out["pczt"] = .string(Base64.encode(try signed.serialized()))
        out["signatures"] = .number(String(done.toSign))
        return (out, signed)
    }

    /// The summary record: every spend and output as the keys verified them, and the fee.
    public static func summary(_ r: PCZTReport, _ pczt: PCZT) -> JSONObject {
        var s = JSONObject()
        s["type"] = .string("pczt_summary")
        s["chain"] = .string("zcash")
        s["network"] = .string(r.network.rawValue)
        s["pczt_version"] = .number(String(pczt.version))
        s["tx_version"] = .number(String(pczt.global.txVersion))
        s["expiry_height"] = .number(String(pczt.global.expiryHeight))
        s["spends"] = .array(
            r.spends.map { spend in
                var o = JSONObject()
                o["pool"] = .string(spend.pool)
                o["index"] = .number(String(spend.index))
                if let txid = spend.txid, let vout = spend.vout {
                    o["txid"] = .string(Hex.encode(txid))
                    o["vout"] = .number(String(vout))
                }
                if let value = spend.value { o["amount"] = .string(String(value)) }
                if let address = spend.address { o["address"] = .string(address) }
                o["ours"] = .bool(spend.path != nil)
                if let path = spend.path { o["path"] = .string(DerivationPath(path).description) }
                if let type = spend.sighashType { o["sighash"] = .string(PCZT.sighashName(type)) }
                return .object(o)
            })
        s["outputs"] = .array(
            r.outputs.map { output in
                var o = JSONObject()
                o["pool"] = .string(output.pool)
                o["index"] = .number(String(output.index))
                o["amount"] = .string(String(output.value))
                if let address = output.address { o["address"] = .string(address) }
                if let script = output.script { o["script"] = .string(Hex.encode(script)) }
                o["role"] = .string(output.role.rawValue)
                if let memo = output.memo {
                    if let text = SaplingMemo.text(memo) { o["memo_text"] = .string(text) } else { o["memo"] = .string(Hex.encode(memo)) }
                }
                return .object(o)
            })
        s["input_total"] = .string(String(r.spends.reduce(UInt64(0)) { $0 + ($1.value ?? 0) }))
        s["sent"] = .string(String(r.outputs.filter { $0.role == .payment }.reduce(UInt64(0)) { $0 + $1.value }))
        s["fee"] = .string(String(r.fee))
        s["signatures"] = .number(String(r.toSign))
        let unusual = Set(r.spends.compactMap(\.sighashType).filter { $0 != PCZT.SighashType.all })
        if !unusual.isEmpty { s["sighash_warning"] = .array(unusual.sorted().map { .string(PCZT.sighashName($0)) }) }
        return s
    }

    /// The seed a PCZT record is signed with: the record's own phrase or seed, or the run's
    /// (a zec or BIP39 key-store entry, --key-file, --key-fd). A viewing key signs nothing.
    public static func seed(
        _ record: JSONObject, reader: RecordKeys, runSource: KeySource?, runSeed: SecureBytes?, out: inout JSONObject
    ) throws -> SecureBytes {
        if RecordKeys.hasKey(record) {
            if runSource != nil { throw RecordError.conflictingFields(["a key in the record", "--key-file/--key-fd/--wallet"]) }
            return try reader.seed(record, out: &out)
        }
        if let runSeed { return runSeed }
        if runSource != nil {
            throw DerivationError.unsupported(
                "a PCZT is signed from a seed (ZIP 32): give a BIP39 phrase or seed, or a zec or BIP39 key-store entry; this key is not one"
            )
        }
        throw RecordError.missingField(
            "mnemonic", expected: "the seed that signs the PCZT: a BIP39 phrase or seed, --wallet, --key-file or --key-fd")
    }
}
