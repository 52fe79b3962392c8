/// `getUsers` (admin) and `tokenInfo` (who an API key signs in as). Users are managed on the
/// box (the config file, the MPD-port commands, the page), not through the API: Subsonic's
/// `createUser` would put passwords on the wire to a server that then keeps them.
extension SubsonicService {
    static var userEndpoints: [String: SubsonicEndpoint] {
        [
            "getUsers": SubsonicEndpoint(permission: [.admin]) { call throws(SubsonicError) in
                var node = SubsonicNode("users")
                node.add(list: "user", call.service.signIn.users.map { userNode($0, mounts: call.backend.mounts()) })
                return .node(node)
            },
            "tokenInfo": SubsonicEndpoint { call throws(SubsonicError) in
                guard try call.arguments.optional("apiKey") != nil else { throw SubsonicError(42, "Provided authentication mechanism not supported") }
                return .node(SubsonicNode("tokenInfo", [("username", .string(call.user?.name ?? ""))]))
            },
        ]
    }
}
