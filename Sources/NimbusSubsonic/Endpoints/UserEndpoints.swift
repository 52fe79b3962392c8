/// `getUsers` (admin) and `tokenInfo` (who an API key signs in as). Users are managed on the
/// box (the config file, the MPD-port commands, the page), not through the API: Subsonic's
/// `createUser` would put passwords on the wire to a server that then keeps them.
extension SubsonicService {
    enum UserEndpoints {
        static func getUsers(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            var node = SubsonicNode("users")
            node.add(list: "user", call.service.signIn.users.map { userNode($0, mounts: call.backend.mounts()) })
            return .node(node)
        }

        static func tokenInfo(_ call: SubsonicCall) throws(SubsonicError) -> SubsonicReply {
            guard try call.arguments.optional("apiKey") != nil else { throw SubsonicError(42, "Provided authentication mechanism not supported") }
            return .node(SubsonicNode("tokenInfo", [("username", .string(call.user?.name ?? ""))]))
        }
    }
}
