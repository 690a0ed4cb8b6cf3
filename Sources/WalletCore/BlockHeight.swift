/// The highest block height Satchel takes anywhere (a key store's birthday, a scan's range,
/// a node's answer): far beyond any chain, far below what could overflow a height's arithmetic.
public enum BlockHeight {
    public static let max = 1 << 40
}
