"""An MCP session with the official Python SDK (`mcp`) through the `memdir`
on PATH: initialize, list the tools, remember a fact with the `memory`
tool and recall it. Prints one JSON line: the server's name and version,
the tools' names, and the recalled text. Argument: the memory root."""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def main(root: str) -> None:
    params = StdioServerParameters(command="memdir", args=["--root", root, "--owner", "agt_wheel", "mcp"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            added = await session.call_tool(
                "memory",
                {"action": "remember", "target": "memory", "operation": "add", "content": "The wheel's MCP server remembers"},
            )
            recalled = await session.call_tool("memory", {"action": "recall"})
            text = lambda r: "".join(getattr(c, "text", "") for c in r.content)
            print(
                json.dumps(
                    {
                        "server": init.server_info.name if hasattr(init, "server_info") else init.serverInfo.name,
                        "tools": sorted(t.name for t in tools.tools),
                        "added_error": bool(added.is_error if hasattr(added, "is_error") else added.isError),
                        "recalled": text(recalled),
                    }
                )
            )


asyncio.run(main(sys.argv[1]))
