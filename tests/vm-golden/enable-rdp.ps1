#Requires -RunAsAdministrator
<#
    enable-rdp.ps1 - written by vfiowiz for this VM.

    Copy it into the Windows guest and run it there in an elevated
    PowerShell (right-click Start, "Terminal (Admin)" or "Windows PowerShell
    (Admin)"):

        powershell -ExecutionPolicy Bypass -File .\enable-rdp.ps1

    It turns Remote Desktop on with Network Level Authentication, opens the
    firewall's Remote Desktop rules to the allow-list only (and the local
    subnet, where the host's tunnel comes from), sets the port, turns on logon auditing, checks
    the accounts that may sign in, and prints what it did.  Running it again
    changes nothing more.  It needs Windows Pro, Enterprise, Education or
    Server: Windows Home cannot accept Remote Desktop connections.
#>
Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

# Addresses or networks that may connect (filled in by vfiowiz).
$AllowList = @('192.0.2.10', '198.51.100.0/24', '2001:db8::/32')
# TCP and UDP port of Remote Desktop (3389 is Windows' default).
$Port = 3389
# Also this guest's own subnet: set for a guest behind the host's NAT
# network, where the SSH tunnel through the host arrives from.
$AlsoLocalSubnet = $false

# The "Remote Desktop" firewall group by its resource name: the display
# name is translated on non-English Windows, this name never is.
$RdpGroup = '@FirewallAPI.dll,-28752'
# The audit subcategory "Logon" by GUID, for the same reason.
$LogonAudit = '{0CCE9215-69AE-11D9-BED3-505054503030}'
$Ts = 'HKLM:\System\CurrentControlSet\Control\Terminal Server'
$RdpTcp = "$Ts\WinStations\RDP-Tcp"

function Say([string]$Text) {
    Write-Host "vfiowiz: $Text"
}

$Edition = (Get-ItemProperty -Path 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion').EditionID
if ($Edition -like 'Core*') {
    Say "this is Windows Home ($Edition): it cannot accept Remote Desktop connections. Nothing was changed."
    exit 1
}

$Remote = @($AllowList)
if ($AlsoLocalSubnet -or $Remote.Count -eq 0) {
    $Remote += 'LocalSubnet'
}

# 1. Remote Desktop on.
Set-ItemProperty -Path $Ts -Name 'fDenyTSConnections' -Value 0 -Type DWord
Say 'Remote Desktop connections are allowed.'

# 2. Network Level Authentication: sign in before a session is created.
Set-ItemProperty -Path $RdpTcp -Name 'UserAuthentication' -Value 1 -Type DWord
Say 'Network Level Authentication is required.'

# 3. The port.
$OldPort = (Get-ItemProperty -Path $RdpTcp -Name 'PortNumber').PortNumber
$PortChanged = $OldPort -ne $Port
if ($PortChanged) {
    Set-ItemProperty -Path $RdpTcp -Name 'PortNumber' -Value $Port -Type DWord
    Say "Remote Desktop port set to $Port (it was $OldPort)."
} else {
    Say "Remote Desktop listens on port $Port."
}

# 4. The firewall: Remote Desktop from the allow-list only.
Get-NetFirewallRule -Name 'vfiowiz-RDP-*' -ErrorAction SilentlyContinue | Remove-NetFirewallRule
if ($Port -eq 3389) {
    Enable-NetFirewallRule -Group $RdpGroup
    Set-NetFirewallRule -Group $RdpGroup -RemoteAddress $Remote
    Say ('Firewall: the Remote Desktop rules accept only ' + ($Remote -join ', ') + '.')
} else {
    # The built-in rules are for port 3389: ours replace them.
    Disable-NetFirewallRule -Group $RdpGroup
    foreach ($Proto in @('TCP', 'UDP')) {
        New-NetFirewallRule -Name "vfiowiz-RDP-$Proto" -DisplayName "Remote Desktop ($Proto $Port, vfiowiz)" `
            -Direction Inbound -Protocol $Proto -LocalPort $Port -RemoteAddress $Remote `
            -Action Allow -Profile Any | Out-Null
    }
    Say ("Firewall: port $Port (TCP and UDP) accepts only " + ($Remote -join ', ') + '; the built-in Remote Desktop rules are off.')
}

# 5. Logon auditing: successful and failed sign-ins go to the Security log.
& auditpol.exe /set "/subcategory:$LogonAudit" /success:enable /failure:enable | Out-Null
if ($LASTEXITCODE -ne 0) {
    Say 'WARNING: auditpol could not turn on logon auditing.'
} else {
    Say 'Logon auditing is on: Event Viewer, Windows Logs, Security, events 4624 (sign-in) and 4625 (failure).'
}

# 6. Accounts: Remote Desktop is only as strong as the passwords behind it.
foreach ($User in @(Get-LocalUser | Where-Object { $_.Enabled -and -not $_.PasswordRequired })) {
    Say "WARNING: the account $($User.Name) may have no password: give it a strong one or disable it."
}
foreach ($User in @(Get-LocalUser | Where-Object { $_.Enabled -and $_.SID.Value -like 'S-1-5-21-*-500' })) {
    Say "WARNING: the built-in account $($User.Name) is enabled: sign in with a named account instead."
}
foreach ($Sid in @('S-1-5-32-544', 'S-1-5-32-555')) {
    try {
        $Group = Get-LocalGroup -SID $Sid
        $Names = @(Get-LocalGroupMember -SID $Sid | ForEach-Object { $_.Name })
        Say ("May sign in (" + $Group.Name + "): " + ($Names -join ', '))
    } catch {
        Say "could not list the members of $Sid."
    }
}

# 7. A port change takes effect when the service restarts (this ends the
# Remote Desktop sessions open now).
if ($PortChanged) {
    Restart-Service -Name 'TermService' -Force
    Say 'Remote Desktop Services restarted.'
}

$Listening = @(Get-NetTCPConnection -State Listen -LocalPort $Port -ErrorAction SilentlyContinue)
if ($Listening.Count -gt 0) {
    Say "done: Remote Desktop is listening on port $Port."
} else {
    Say "done; Remote Desktop is not listening on port $Port yet: restart Windows if it stays so."
}
